-- schema: own
CREATE TABLE samples (id INTEGER, value TEXT);
INSERT INTO samples VALUES (1, 'x');
