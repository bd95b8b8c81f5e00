-- Kernel-level MFU (SPEC 2), same columns as msprof-analyze's OperatorMFU.
-- Not STRICT: readers with SQLite older than 3.37 could not open the file.
CREATE TABLE "OperatorMFU" (
    "rank_id" INTEGER,
    "op_name" TEXT,
    "kernel_name" TEXT,
    "kernel_start(ns)" INTEGER,
    "kernel_end(ns)" INTEGER,
    "kernel_duration(ns)" INTEGER,
    "mfu" REAL,
    "actual_tflops" REAL,
    "chip_peak_tflops" REAL,
    "flops" INTEGER,
    "flops_op_name" TEXT,
    "input_shapes" TEXT,
    "output_shapes" TEXT
);
