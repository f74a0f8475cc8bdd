// The configuration without a secret: every client's OAuth form carries the MCP URL and nothing
// else a key form has (no Authorization header, no key), in each client's own shape; the key
// forms carry the URL bound to their agent and room.
import t from 'tap'
import { boundUrl, oauthSnippetsFor, snippetsFor } from '../../src/shared/snippets.js'

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

t.test('the key forms carry the key, and the URL bound to the agent and the room', async (t) => {
  const k = snippetsFor({ agentId: 'a', roomId: 'r', key: 'ar_room_t.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', url: URL_ })
  t.match(k.claude_code, /--header "Authorization: Bearer ar_room_t\./)
  t.match(k.claude_code, ` "${URL_}?agent=a&room=r" `, 'quoted for the shell: & would end the command')
  for (const form of [JSON.parse(k.cursor).mcpServers, JSON.parse(k.vscode).servers, JSON.parse(k.generic).mcpServers])
    t.equal(form.agentrooms.url, `${URL_}?agent=a&room=r`)
  t.match(k.codex, `url = "${URL_}?agent=a&room=r"`)
  t.equal(
    boundUrl({ agentId: 'QA bot/ü&x', roomId: 'r.1', url: URL_ }),
    `${URL_}?agent=QA+bot%2F%C3%BC%26x&room=r.1`,
    'an agent id of any characters is encoded',
  )
})
