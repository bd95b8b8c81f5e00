-- id (what PYTORCH_API.connectionId holds) -> connectionId (what TASK and
-- COMMUNICATION_OP hold); an id may have several rows.
SELECT id, connectionId FROM CONNECTION_IDS
