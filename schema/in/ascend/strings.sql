-- The string table: every name/string column elsewhere is an id into it.
-- Keep the form SELECT <columns> FROM ...: the reader runs it as
-- SELECT opmfu_row(<columns>) FROM ... (src/read/read_ascend.c).
SELECT id, value FROM STRING_IDS
