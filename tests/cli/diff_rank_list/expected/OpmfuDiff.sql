SELECT kind, name, delta_lost_ns FROM OpmfuDiff ORDER BY rowid
