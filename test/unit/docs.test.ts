// The generated tables of docs/ match the code's tables (fastify's habit: docs and code cannot drift).
import t from 'tap'
import { readFileSync } from 'node:fs'
import { configurationTable, errorsTable, generatedPart } from '../../scripts/docs.js'

t.equal(generatedPart(readFileSync('docs/configuration.md', 'utf8')), configurationTable(), 'docs/configuration.md is current (npm run docs)')
t.equal(generatedPart(readFileSync('docs/errors.md', 'utf8')), errorsTable(), 'docs/errors.md is current (npm run docs)')
