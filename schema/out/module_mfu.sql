-- Module-level MFU (SPEC 3), same columns as msprof-analyze's ModuleMFU;
-- avg_mfu is always present (SPEC 5.2).
CREATE TABLE "ModuleMFU" (
    "rank_id" INTEGER,
    "parent_module" TEXT,
    "module" TEXT,
    "op_name" TEXT,
    "kernel_list" TEXT,
    "total_kernel_duration(ns)" REAL,
    "avg_kernel_duration(ns)" REAL,
    "op_count" INTEGER,
    "avg_mfu" TEXT
);
