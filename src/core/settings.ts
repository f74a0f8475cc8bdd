// The settings the room model reads: its limits and time spans (durations in milliseconds). The
// composition root's Settings (src/config.ts, read from the environment and documented in
// docs/configuration.md) has every one of them under the same name, and node.ts hands it over
// whole; the core declares only what it uses, so it never imports the root.

export interface CoreSettings {
  roomTtlMs: number
  presenceTtlMs: number
  lockTtlDefaultMs: number
  lockTtlMaxMs: number
  reservationTtlDefaultMs: number
  reservationTtlMaxMs: number
  eventsRetained: number
  contextHistory: number
  contextBodyBytes: number
  eventTextBytes: number
  eventDataBytes: number
  taskNotesBytes: number
  varValueBytes: number
  tasksPerRoom: number
  contextPerRoom: number
  varsPerRoom: number
  locksPerRoom: number
  reservationsPerRoom: number
  reviewsPerRoom: number
  dependenciesPerTask: number
  roomsPerTeam: number
}
