// The Stop hook run as the clients run it, against a real node on each backend: `agentrooms hook
// config` prints each client's configuration, and the command it holds is run through `sh -c` with
// the hook's JSON on stdin and killed at the configured timeout, as Claude Code, Codex and Cursor
// do. It blocks on an unread event, on one that arrives while it waits, on a task assigned to the
// agent and on a review the agent asked for being decided; it lets go when nothing is new, when a
// stop hook already kept the agent going and nothing arrived since, and after --max-blocks; it
// consumes nothing. The HTTP endpoint is called as Claude Code's `type: "http"` hook calls it.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { resolve } from 'node:path'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { freePort } from '../helpers/redis.js'
import { BACKENDS, uid } from '../helpers/shared.js'

const MAIN = resolve('src/cli/main.ts')
const TSX = import.meta.resolve('tsx')

interface Run {
  code: number | null
  stdout: string
  stderr: string
  ms: number
}

/** Runs `argv` (or a shell command) with `stdin`, killed after `timeoutS` as a client kills a hook. */
function run(cmd: string, args: string[], stdin: string, env: Record<string, string>, timeoutS = 60): Promise<Run> {
  return new Promise((done) => {
    const started = Date.now()
    const child = spawn(cmd, args, { env: { PATH: process.env.PATH ?? '', ...env } })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutS * 1000)
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ code, stdout, stderr, ms: Date.now() - started })
    })
    child.stdin.end(stdin)
  })
}

const cli = (args: string[], env: Record<string, string>, stdin = '') =>
  run(process.execPath, ['--import', TSX, MAIN, ...args], stdin, env)

/** Claude Code's Stop-hook input. */
const claudeStop = (active: boolean, session = 's1') =>
  JSON.stringify({
    session_id: session,
    transcript_path: '/tmp/t.jsonl',
    cwd: '/tmp',
    permission_mode: 'default',
    hook_event_name: 'Stop',
    stop_hook_active: active,
    last_assistant_message: 'done',
  })

interface Config {
  hooks: Record<string, { hooks?: { type: string; command?: string; url?: string; timeout: number }[] }[]>
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const n: TestNode = await startNode(t, backend)
    const { teamId, key } = await newTeam(n)
    const home = mkdtempSync(`${tmpdir()}/ar-hook-`)
    t.teardown(() => rmSync(home, { recursive: true, force: true }))
    const env = { AGENTROOMS_URL: n.base, AGENTROOMS_KEY: key, HOME: home }
    const core = n.node.core
    const newRoomId = async () => {
      const roomId = uid('hook')
      const res = await n.call('/admin/rooms', { method: 'POST', key, json: { roomId } })
      if (res.status !== 201) throw new Error(`room: ${res.status}`)
      const room = { teamId, roomId }
      // bob reads everything there is, so the room starts with nothing unread for him.
      await core.events.post({ room, agent: 'bob' }, { type: 'status', text: 'here' })
      await core.events.unread({ room, agent: 'bob' })
      return { roomId, room, alice: { room, agent: 'alice' }, bob: { room, agent: 'bob' } }
    }
    /** Starts `p` (a hook run), waits until the hook listens on the room, then runs `fn`. */
    const whileWaiting = async <T>(p: () => Promise<T>, fn: () => Promise<unknown>): Promise<T> => {
      const before = n.node.hub.stats().listeners
      const running = p()
      const until = Date.now() + 20_000
      while (n.node.hub.stats().listeners <= before && Date.now() < until) await new Promise((r) => setTimeout(r, 25))
      await new Promise((r) => setTimeout(r, 300)) // its baseline reads
      await fn()
      return running
    }
    /** The command of the printed configuration of `client` (the shell runs it as the client does). */
    const configured = async (roomId: string, file: string, extra: string[] = []) => {
      const r = await cli(['hook', 'config', '--room', roomId, '--agent', 'bob', ...extra], env)
      t.equal(r.code, 0, r.stderr)
      const blocks = r.stdout.split('\n\n')
      const block = blocks.find((b) => b.split('\n')[0]!.endsWith(`, ${file}:`) && !b.includes('HTTP hook'))!
      return JSON.parse(block.slice(block.indexOf('\n') + 1)) as Config
    }

    t.test('claude-stop from the printed .claude/settings.json', async (t) => {
      const { roomId, alice, bob } = await newRoomId()
      const cfg = await configured(roomId, '.claude/settings.json', ['--wait', '2'])
      const hook = cfg.hooks.Stop![0]!.hooks![0]!
      t.equal(hook.type, 'command')
      t.equal(hook.timeout, 32, 'the timeout outlasts the wait')
      const asClaude = (active: boolean) => run('sh', ['-c', hook.command!], claudeStop(active), env, hook.timeout)

      const idle = await asClaude(false)
      t.equal(idle.code, 0, idle.stderr)
      t.equal(idle.stdout, '', 'nothing new: no output, the agent may stop')
      t.ok(idle.ms >= 2000, 'it waited --wait seconds first')

      await core.events.post(alice, { type: 'question', text: 'bob, can you look at t1?' })
      const woke = await asClaude(false)
      t.equal(woke.code, 0, woke.stderr)
      const out = JSON.parse(woke.stdout) as { decision: string; reason: string }
      t.equal(out.decision, 'block')
      t.match(out.reason, /room "hook[^"]*" has news for agent "bob": 1 new event from alice/)
      t.match(out.reason, /Call get_my_summary with room_id "hook[^"]*" and agent_id "bob"/)
      t.notMatch(out.reason, /can you look/, 'the text of events is not passed on as an instruction')
      t.equal(await core.events.peekUnread(bob), 1, 'consumed nothing')

      const again = await asClaude(true)
      t.equal(again.stdout, '', 'stop_hook_active and nothing arrived since: it lets the agent stop')

      const late = await whileWaiting(
        () => asClaude(true),
        () => core.events.post(alice, { type: 'message', text: 'one more' }),
      )
      t.match(JSON.parse(late.stdout), { decision: 'block', reason: /1 new event from alice/ }, 'a new one wakes it')
    })

    t.test('tasks assigned, reviews decided, --mentions', async (t) => {
      const { roomId, alice, bob } = await newRoomId()
      const args = ['hook', 'claude-stop', '--room', roomId, '--agent', 'bob', '--wait', '8', '--mentions']
      const later = (fn: () => Promise<unknown>) => whileWaiting(() => cli(args, env, claudeStop(false)), fn)
      const task = (await core.plan.addTask(alice, { title: 'Write the API' })) as { task: { id: string } }
      const assigned = await later(() => core.plan.updateTask(alice, { task_id: task.task.id, assignee: 'bob' }))
      t.match(
        JSON.parse(assigned.stdout).reason,
        new RegExp(`ready or assigned to you: ${task.task.id} \\(todo, yours\\)`),
      )

      const review = (await core.reviews.request(bob, { target: { kind: 'task', task_id: task.task.id } })) as {
        review: { id: string }
      }
      const decided = await later(() => core.reviews.approve(alice, { review_id: review.review.id }))
      t.match(
        JSON.parse(decided.stdout).reason,
        new RegExp(`you asked for decided: ${review.review.id} approved by alice`),
      )

      const quiet = await cli([...args.slice(0, -3), '--wait', '1', '--mentions'], env, claudeStop(true))
      t.equal(quiet.stdout, '')
      await core.events.post(alice, { type: 'message', text: 'general chatter' })
      const chatter = await cli([...args.slice(0, -3), '--wait', '1', '--mentions'], env, claudeStop(false))
      t.equal(chatter.stdout, '', '--mentions: an event that does not name bob does not wake him')
      const named = await later(() => core.events.post(alice, { type: 'question', text: 'ping @bob, ready?' }))
      t.match(JSON.parse(named.stdout).reason, /1 new event from alice \(1 naming you or answering you\)/)
      await core.events.unread(bob)
      const mine = (await core.events.post(bob, { type: 'status', text: 'shipped' })) as { event: { id: string } }
      const reply = await later(() => core.events.reply(alice, { event_id: mine.event.id, text: 'thanks' }))
      t.match(JSON.parse(reply.stdout).reason, /naming you or answering you/, 'a reply in his thread wakes him')
    })

    t.test('--max-blocks, Cursor and Codex formats, an unreachable service', async (t) => {
      const { roomId, alice } = await newRoomId()
      await core.events.post(alice, { type: 'message', text: 'x' })
      const args = (client: string) => [
        'hook',
        `${client}-stop`,
        '--room',
        roomId,
        '--agent',
        'bob',
        '--max-blocks',
        '2',
      ]
      const first = await cli(args('claude'), env, claudeStop(false, 'capped'))
      t.equal(JSON.parse(first.stdout).decision, 'block', 'block 1')
      const second = await whileWaiting(
        () => cli([...args('claude'), '--wait', '8'], env, claudeStop(true, 'capped')),
        () => core.events.post(alice, { type: 'message', text: 'more' }),
      )
      t.equal(JSON.parse(second.stdout).decision, 'block', 'block 2: something new arrived while it waited')
      const capped = await cli(
        args('claude'),
        { ...env, AGENTROOMS_URL: `http://127.0.0.1:${await freePort()}` },
        claudeStop(true, 'capped'),
      )
      t.equal(capped.code, 0)
      t.equal(capped.stdout, '', 'after --max-blocks consecutive blocks it lets go without asking')
      const fresh = await cli(args('claude'), env, claudeStop(false, 'capped'))
      t.equal(JSON.parse(fresh.stdout).decision, 'block', 'a new turn counts from zero')

      const codex = await cli(
        args('codex'),
        env,
        JSON.stringify({
          hook_event_name: 'Stop',
          stop_hook_active: false,
          session_id: 'c',
          turn_id: 'u',
          cwd: '/',
          model: 'm',
          permission_mode: 'default',
          transcript_path: null,
          last_assistant_message: null,
        }),
      )
      t.match(JSON.parse(codex.stdout), { decision: 'block', reason: /has news for agent "bob"/ })
      const cursor = await cli(
        args('cursor'),
        env,
        JSON.stringify({ conversation_id: 'k', status: 'completed', loop_count: 0 }),
      )
      t.match(JSON.parse(cursor.stdout), { followup_message: /has news for agent "bob"/ })
      const looped = await cli(
        args('cursor'),
        env,
        JSON.stringify({ conversation_id: 'k', status: 'completed', loop_count: 2 }),
      )
      t.equal(looped.stdout, '', "Cursor's loop_count counts toward --max-blocks")
      const aborted = await cli(
        args('cursor'),
        env,
        JSON.stringify({ conversation_id: 'k', status: 'aborted', loop_count: 0 }),
      )
      t.equal(aborted.stdout, '', 'an aborted agent is not woken')

      const down = await cli(
        args('claude'),
        { ...env, AGENTROOMS_URL: `http://127.0.0.1:${await freePort()}` },
        claudeStop(false, 'd'),
      )
      t.equal(down.code, 1, 'a failed hook: the client shows it and lets the agent stop')
      t.equal(down.stdout, '')
      t.match(down.stderr, /cannot reach the service/)
      const bad = await cli(args('claude'), env, 'not json')
      t.equal(bad.code, 1)
      t.match(bad.stderr, /hook: stdin is not the hook's JSON/)
      const usage = await cli(['hook', 'claude-stop', '--room', roomId, '--agent', 'bob', '--wait', '9999'], env)
      t.equal(usage.code, 2)
      t.match(usage.stderr, /--wait: must be a whole number from 0 to 540/)
    })

    t.test('the HTTP hook, as Claude Code calls it', async (t) => {
      const { roomId, alice, bob } = await newRoomId()
      const r = await cli(['hook', 'config', '--room', roomId, '--agent', 'bob', '--wait', '12'], env)
      const block = r.stdout.split('\n\n').find((b) => b.startsWith('Claude Code, HTTP hook'))!
      const cfg = JSON.parse(block.slice(block.indexOf('\n') + 1)) as Config
      const hook = cfg.hooks.Stop![0]!.hooks![0]! as unknown as {
        url: string
        headers: Record<string, string>
        timeout: number
      }
      t.equal(hook.headers.Authorization, 'Bearer $AGENTROOMS_KEY')
      const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` }
      const call = () =>
        fetch(hook.url, {
          method: 'POST',
          headers,
          body: claudeStop(false),
          signal: AbortSignal.timeout(hook.timeout * 1000),
        })
      const res = await whileWaiting(call, async () => {
        // Longer than the HTTP server's idle timeout: the keep-alive spaces hold the request open.
        await new Promise((r) => setTimeout(r, backend === 'standalone' ? 11_000 : 500))
        await core.events.post(alice, { type: 'message', text: 'after a while' })
      })
      t.equal(res.status, 200)
      t.match(JSON.parse(await res.text()), { decision: 'block', reason: /1 new event from alice/ })
      t.equal(await core.events.peekUnread(bob), 1, 'consumed nothing')

      const once = await n.call(`/rooms/${roomId}/agents/bob/hooks/stop`, {
        method: 'POST',
        key,
        json: { stop_hook_active: true },
      })
      t.same(await once.json(), {}, 'nothing new since the last block: {} lets the agent stop')
      const badQuery = await n.call(`/rooms/${roomId}/agents/bob/hooks/stop?wait_s=600`, {
        method: 'POST',
        key,
        json: {},
      })
      t.equal(badQuery.status, 400)
      t.match(await badQuery.json(), { error: { message: /wait_s: must be at most 540/ } })
      const other = await n.call(`/rooms/nope-${roomId}/agents/bob/hooks/stop`, { method: 'POST', key, json: {} })
      t.equal(other.status, 404)
    })
  })
}
