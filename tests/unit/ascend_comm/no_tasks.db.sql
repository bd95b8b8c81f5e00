-- comm_tasks.db without communication tasks (an export that has no
-- COMMUNICATION_TASK_INFO rows): communication is the collective's span.
-- include: comm_tasks.db.sql
DELETE FROM COMMUNICATION_TASK_INFO;
