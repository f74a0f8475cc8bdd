// What one attempt produces and what follows from its answer: the body and its signatures (checked
// with the standardwebhooks package and node's own HMAC), Retry-After parsing, and the outcome
// rules (2xx done, 410 gone, retry on the schedule with jitter, Retry-After honoured, failed after
// the last attempt).
import t from 'tap'
import { createHmac } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { decide, deliveryBody } from '../../src/webhooks/attempt.js'
import { nextLookAt } from '../../src/webhooks/dispatcher.js'
import { parseRetryAfter } from '../../src/webhooks/send.js'
import { newSecret, signedHeaders, standardKey } from '../../src/webhooks/signing.js'

t.test('signatures: the hex HMAC over the raw body, and Standard Webhooks v1', async (t) => {
  const secret = newSecret()
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  t.equal(standardKey(secret).length, 32)
  const body = Buffer.from('{"id":"dlv_1","type":"room.event","text":"ünïcode"}')
  const h = signedHeaders({ secret }, 'dlv_1', 1_700_000_000, body)
  t.equal(h['X-Service-Signature'], createHmac('sha256', secret).update(body).digest('hex'))
  t.match(h, {
    'X-Service-Delivery': 'dlv_1',
    'webhook-id': 'dlv_1',
    'X-Service-Timestamp': '1700000000',
    'webhook-timestamp': '1700000000',
  })
  // standardwebhooks checks the timestamp against now; sign with the current time for it.
  const now = Math.floor(Date.now() / 1000)
  const fresh = signedHeaders({ secret }, 'dlv_2', now, body)
  t.same(
    new Webhook(secret).verify(body.toString(), {
      'webhook-id': 'dlv_2',
      'webhook-timestamp': String(now),
      'webhook-signature': fresh['webhook-signature']!,
    }),
    JSON.parse(body.toString()),
  )
  t.throws(
    () =>
      new Webhook(secret).verify(body.toString(), {
        'webhook-id': 'dlv_X',
        'webhook-timestamp': String(now),
        'webhook-signature': fresh['webhook-signature']!,
      }),
    'the id is signed too',
  )
  t.throws(
    () =>
      new Webhook(newSecret()).verify(body.toString(), {
        'webhook-id': 'dlv_2',
        'webhook-timestamp': String(now),
        'webhook-signature': fresh['webhook-signature']!,
      }),
    'another secret fails',
  )
})

t.test('a rotated secret: both sign during the overlap, then only the new one', async (t) => {
  const [oldS, newS] = [newSecret(), newSecret()]
  const body = Buffer.from('{"id":"dlv_3"}')
  const now = Math.floor(Date.now() / 1000)
  const during = signedHeaders(
    { secret: newS, previous: { secret: oldS, until: (now + 60) * 1000 } },
    'dlv_3',
    now,
    body,
  )
  t.equal(
    during['X-Service-Signature'],
    createHmac('sha256', oldS).update(body).digest('hex'),
    'X-Service-Signature keeps the previous secret until the overlap ends',
  )
  t.equal(during['webhook-signature']!.split(' ').length, 2, 'webhook-signature carries two signatures')
  const headers = (sig: string) => ({
    'webhook-id': 'dlv_3',
    'webhook-timestamp': String(now),
    'webhook-signature': sig,
  })
  for (const s of [oldS, newS])
    t.same(
      new Webhook(s).verify(body.toString(), headers(during['webhook-signature']!)),
      { id: 'dlv_3' },
      'standardwebhooks verifies with either secret',
    )
  t.throws(
    () => new Webhook(newSecret()).verify(body.toString(), headers(during['webhook-signature']!)),
    'a third secret still fails',
  )
  const after = signedHeaders({ secret: newS, previous: { secret: oldS, until: now * 1000 } }, 'dlv_3', now, body)
  t.equal(
    after['X-Service-Signature'],
    createHmac('sha256', newS).update(body).digest('hex'),
    'after the overlap: the new secret',
  )
  t.equal(after['webhook-signature']!.split(' ').length, 1)
  t.throws(
    () => new Webhook(oldS).verify(body.toString(), headers(after['webhook-signature']!)),
    'the previous secret no longer verifies',
  )
})

t.test('the body: {id, type, team_id, room_id, event, sent_at}, the event as MCP and SSE show it', async (t) => {
  const d = {
    id: 'dlv_000000000001abcdefabcdef',
    wh: 'wh_x',
    room: 'payments',
    ev: '1700000000000-7',
    n: 1,
    at: 0,
    e: {
      type: 'blocker',
      agent_id: 'a',
      text: 'stuck',
      data: '{"k":1}',
      reply_to: '1700000000000-6',
      created_at: 1_700_000_000_000,
    },
  }
  const body = JSON.parse(deliveryBody('tm1', d, new Date(1_700_000_001_000)).toString())
  t.same(body, {
    id: d.id,
    type: 'room.event',
    team_id: 'tm1',
    room_id: 'payments',
    event: {
      id: '1700000000000-7',
      type: 'blocker',
      agent_id: 'a',
      text: 'stuck',
      data: { k: 1 },
      reply_to: '1700000000000-6',
      created_at: '2023-11-14T22:13:20.000Z',
    },
    sent_at: '2023-11-14T22:13:21.000Z',
  })
})

t.test('Retry-After: seconds or an HTTP date', async (t) => {
  t.equal(parseRetryAfter('120'), 120_000)
  t.equal(parseRetryAfter(' 3 '), 3000)
  t.equal(parseRetryAfter(new Date(Date.now() + 10_000).toUTCString(), Date.now()) !== undefined, true)
  t.equal(parseRetryAfter('soon'), undefined)
  t.equal(parseRetryAfter(undefined), undefined)
})

t.test('outcomes: done, gone, retried on the schedule, honoured Retry-After, failed after the last', async (t) => {
  const schedule = [5000, 300_000, 1_800_000]
  const mid = () => 0.5 // no jitter
  t.same(decide({ status: 204 }, 1, schedule, 0.2, mid), { outcome: 'ok', delayMs: 0 })
  t.same(decide({ status: 410 }, 1, schedule, 0.2, mid), { outcome: 'gone', delayMs: 0 })
  t.same(decide({ status: 500 }, 1, schedule, 0.2, mid), { outcome: 'retry', delayMs: 5000 })
  t.same(decide({ error: 'ECONNREFUSED' }, 2, schedule, 0.2, mid), { outcome: 'retry', delayMs: 300_000 })
  t.same(decide({ status: 302 }, 3, schedule, 0.2, mid), { outcome: 'retry', delayMs: 1_800_000 })
  t.same(
    decide({ status: 500 }, 4, schedule, 0.2, mid),
    { outcome: 'fail', delayMs: 0 },
    'four attempts: the first and three retries',
  )
  t.same(
    decide({ status: 429, retryAfterMs: 60_000 }, 1, schedule, 0.2, mid),
    { outcome: 'retry', delayMs: 60_000 },
    'Retry-After wins over the schedule',
  )
  t.same(
    decide({ status: 503, retryAfterMs: 86_400_000 }, 1, schedule, 0.2, mid),
    { outcome: 'retry', delayMs: 1_800_000 },
    'up to the longest delay',
  )
  t.same(
    decide({ status: 429, retryAfterMs: 1000 }, 4, schedule, 0.2, mid),
    { outcome: 'fail', delayMs: 0 },
    'no attempt left',
  )
  t.same(
    decide({ status: 500 }, 1, schedule, 0.2, () => 0),
    { outcome: 'retry', delayMs: 4000 },
    'jitter: -20%',
  )
  t.same(
    decide({ status: 500 }, 1, schedule, 0.2, () => 1),
    { outcome: 'retry', delayMs: 6000 },
    'jitter: +20%',
  )
})

t.test(
  'a team with work left is due at the time of its claim, not at 0 (teams due at once go oldest first)',
  async (t) => {
    const now = 1_700_000_000_000
    t.equal(nextLookAt({ hinted: 2, more: false, now }, 30_000), now, 'rooms still hinted')
    t.equal(nextLookAt({ hinted: 0, more: true, now, next: now - 5 }, 30_000), now, 'due deliveries left unclaimed')
    t.equal(
      nextLookAt({ hinted: 0, more: false, now, next: now + 5000 }, 30_000),
      now + 5000,
      'the earliest due delivery or lease end',
    )
    t.equal(
      nextLookAt({ hinted: 0, more: false, now, next: now + 60_000 }, 30_000),
      now + 30_000,
      'at most one sweep interval away',
    )
    t.equal(nextLookAt({ hinted: 0, more: false, now }, 30_000), now + 30_000, 'nothing pending: the next sweep')
  },
)
