// Types of what eslint.config.js exports besides the config, for test/unit/layers.test.ts.
import type { Linter } from 'eslint'

/** Who may import whom: each folder of src/ and the folders it may import (see eslint.config.js). */
export declare const LAYERS: Readonly<Record<string, readonly string[]>>

declare const config: Linter.Config[]
export default config
