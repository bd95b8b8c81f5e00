-- comm_tasks.db without runtime calls (an export without CANN_API rows): no
-- launch times, so t->launch stays NULL and the op's start stands in.
-- include: comm_tasks.db.sql
DELETE FROM CANN_API;
