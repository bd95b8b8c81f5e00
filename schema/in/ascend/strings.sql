-- The string table: every name/string column elsewhere is an id into it.
SELECT id, value FROM STRING_IDS
