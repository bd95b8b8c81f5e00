-- id (what PYTORCH_API.connectionId holds) -> connectionId (what TASK and
-- COMMUNICATION_OP hold); an id may have several rows.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT id, connectionId FROM CONNECTION_IDS
