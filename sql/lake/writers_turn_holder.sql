-- Who holds the writers' turn of a lake: PostgreSQL's own SQL, asked of the
-- lake's catalog database (through postgres_query) by a writer waiting for
-- its turn, to name the holder in its progress line and its error.
--
-- Writers take turns through one advisory lock, liftdb's key 0x6c6966746462
-- ("liftdb" in ASCII), which PostgreSQL keeps as classid 27753 and objid
-- 1718903906 (objsubid 1: a single bigint key). Empty when no session holds it.
--
-- Columns (all text, as postgres_query hands them over):
--   application_name  what the holder calls itself; liftdb sets it to
--                     'liftdb COMMAND pid PID [batch N] on HOST'
--   client_addr       the holder's address (empty over a Unix socket)
--   pid               the holder's PostgreSQL backend
--   state             active | idle in transaction | …
--   held_seconds      since the holder's transaction began (NULL if unknown)
--   state_seconds     since its state last changed (an idle holder's stall)
SELECT coalesce(nullif(a.application_name, ''), '(no application_name)') AS application_name,
       coalesce(host(a.client_addr), '') AS client_addr,
       l.pid::text AS pid,
       coalesce(a.state, '') AS state,
       round(extract(epoch FROM now() - a.xact_start))::bigint::text AS held_seconds,
       round(extract(epoch FROM now() - a.state_change))::bigint::text AS state_seconds
FROM pg_locks l
LEFT JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted
  AND l.classid = 27753 AND l.objid = 1718903906 AND l.objsubid = 1
ORDER BY a.xact_start
LIMIT 1
