// Resource URIs (src/mcp/resources.ts): each kind has one spelling, parsing gives back what
// formatting was given for ids with "/", spaces and non-ASCII characters, and anything else (other
// shapes, other spellings, ids no room or agent can have) is not a resource.
import t from 'tap'
import { parseResourceUri, resourceUri, URI_PREFIX, type ResourceRef } from '../../src/mcp/resources.js'

const refs: ResourceRef[] = [
  { kind: 'plan', roomId: 'r1' },
  { kind: 'presence', roomId: 'room_2-x' },
  { kind: 'context', roomId: 'r1', type: 'spec', key: 'api/v1 users' },
  { kind: 'context', roomId: 'r1', type: 'handoff', key: 'naïve %41 ✓' },
  { kind: 'unread', roomId: 'r1', agent: 'claude/reviewer 2' },
]

t.test('format and parse agree', async (t) => {
  for (const ref of refs) {
    const uri = resourceUri(ref)
    t.ok(uri.startsWith(URI_PREFIX), uri)
    t.same(parseResourceUri(uri), ref, `${uri} parses back`)
  }
  t.equal(resourceUri(refs[2]!), `${URI_PREFIX}r1/context/spec/api%2Fv1%20users`)
})

t.test('anything else is not a resource', async (t) => {
  for (const uri of [
    '',
    'agentrooms://rooms/',
    'agentrooms://rooms/r1',
    'agentrooms://rooms/r1/',
    'agentrooms://rooms/r1/plan/',
    'agentrooms://rooms/r1/plan/x',
    'agentrooms://rooms/r1/tasks',
    'agentrooms://rooms/r1/context/spec',
    'agentrooms://rooms/r1/context/Spec/k',
    'agentrooms://rooms/r1/context/spec/api/v1',
    'agentrooms://rooms/r1/context/spec/a%2',
    'agentrooms://rooms/r1/agents/a/read',
    'agentrooms://rooms/r%31/plan',
    'agentrooms://rooms/r1/context/spec/a%2fb',
    'AGENTROOMS://rooms/r1/plan',
    'agentrooms://rooms/-bad/plan',
    'agentrooms://rooms/r1/context/spec/%00',
    'file:///r1/plan',
  ])
    t.equal(parseResourceUri(uri), undefined, JSON.stringify(uri))
})
