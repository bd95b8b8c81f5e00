-- schema: own
CREATE TABLE t (x INTEGER);
