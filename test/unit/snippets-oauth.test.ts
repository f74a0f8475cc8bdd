// The configuration without a secret: every client's OAuth form carries the MCP URL and nothing
// else a key form has (no Authorization header, no key), in each client's own shape.
import t from 'tap'
import { oauthSnippetsFor, snippetsFor } from '../../src/shared/snippets.js'

const URL_ = 'https://rooms.example.com/mcp'

t.test('each OAuth form is the URL alone', async (t) => {
  const s = oauthSnippetsFor(URL_)
  for (const [name, text] of Object.entries(s)) {
    t.match(text, URL_, `${name} names the URL`)
    t.notMatch(text, /Authorization|Bearer|ar_team_|ar_room_/, `${name} carries no secret`)
  }
  t.equal(s.claude_code, `claude mcp add --transport http agentrooms ${URL_}`)
  t.same(JSON.parse(s.cursor), { mcpServers: { agentrooms: { url: URL_ } } })
  t.same(JSON.parse(s.vscode), { servers: { agentrooms: { type: 'http', url: URL_ } } })
  t.same(JSON.parse(s.generic), { mcpServers: { agentrooms: { type: 'http', url: URL_ } } })
  t.match(s.codex, /^\[mcp_servers\.agentrooms\]\nurl = "https:\/\/rooms\.example\.com\/mcp"$/m)
  t.match(s.codex, /codex mcp login agentrooms/)
})

t.test('the key forms are unchanged beside them', async (t) => {
  const k = snippetsFor({ agentId: 'a', roomId: 'r', key: 'ar_room_t.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', url: URL_ })
  t.match(k.claude_code, /--header "Authorization: Bearer ar_room_t\./)
})
