// A conventional implementation of the respondents endpoint, to hold Hadir against: Fastify and
// pg written the straightforward way. Per request it checks the key and its allow-list for the
// campaign in one query, reads the page with a plain SELECT (OFFSET for `page`), and builds the
// JSON in Node: parsed answers, the allowed fields picked, the body serialised by Fastify.
// Usage: node conventional-server.mjs DATABASE_URL POOL_SIZE
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const [url, poolSize] = process.argv.slice(2);
// BIGINT epoch milliseconds as numbers, as any server of this data would read them.
pg.types.setTypeParser(20, Number);
const pool = new pg.Pool({ connectionString: url, max: Number(poolSize) });
const app = Fastify({ logger: false });

const KEY_AND_CAMPAIGN = `
  SELECT s.fields, c.response_count
  FROM api_keys k
  JOIN key_scopes s ON s.key_id = k.id AND s.campaign_id = $2
  JOIN campaigns c ON c.id = s.campaign_id AND c.deleted_at IS NULL
  WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND k.expires_at > $3`;

const PAGE = `
  SELECT id, submitted_at, attendance_status, answers
  FROM respondents WHERE campaign_id = $1
  ORDER BY submitted_at, id LIMIT $2 OFFSET $3`;

// What the bench polls to know the server is up.
app.get('/', async () => 'ok');

app.get('/developer/v1/campaigns/:id/respondents', async (request, reply) => {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return reply.code(401).send({ error: { code: 'unauthorized', message: 'no key' } });
  const hash = createHash('sha256').update(token).digest('hex');
  const scope = await pool.query(KEY_AND_CAMPAIGN, [hash, request.params.id, Date.now()]);
  if (scope.rowCount === 0) {
    return reply.code(404).send({ error: { code: 'not_found', message: 'no such campaign' } });
  }
  const { fields: allowed, response_count: total } = scope.rows[0];
  const limit = Math.min(Number(request.query.limit ?? 50), 200);
  const page = Math.max(Number(request.query.page ?? 1), 1);
  const rows = await pool.query(PAGE, [request.params.id, limit, (page - 1) * limit]);
  const data = rows.rows.map((row) => {
    const fields = {};
    for (const key of allowed) if (key in row.answers) fields[key] = row.answers[key];
    return {
      id: row.id,
      submittedAt: new Date(row.submitted_at).toISOString(),
      attendanceStatus: row.attendance_status,
      fields,
    };
  });
  const totalPages = Math.ceil(total / limit);
  return { data, meta: { total, page, limit, totalPages } };
});

app.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
});
process.on('SIGTERM', async () => {
  await app.close();
  await pool.end();
  process.exit(0);
});
