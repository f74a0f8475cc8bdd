// The row of the settings table (src/config.ts) and the schema helpers its parts share.
import { z } from 'zod'

export type Row = { env: string; schema: z.ZodType; unit: string; doc: string }

export const int = (min: number, max: number, dflt: number) => z.coerce.number().int().min(min).max(max).default(dflt)
/** Whole seconds in the environment (bounds and default in seconds), milliseconds in code. */
export const seconds = (min: number, max: number, dflt: number) => int(min, max, dflt).transform((s) => s * 1000)

/** Whether a row's variable is in seconds while the code holds milliseconds (src/config.ts says why). */
export const heldInMs = (row: { unit: string }): boolean => row.unit === 's' || row.unit === 's list'
