// The room id made from a display name, as the CLI (`create-room`) and the dashboard's room form
// both make it, so a room created either way gets the same id. Pure.

/** What a room id is: src/core/fields.ts validates with it; the CLI checks --id with it. */
export const ROOM_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

/** The name itself when it is a room id, else a slug of it; undefined when no slug is one. */
export function roomIdFromName(name: string): string | undefined {
  if (ROOM_ID.test(name)) return name
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/-+$/, '')
  return ROOM_ID.test(slug) ? slug : undefined
}
