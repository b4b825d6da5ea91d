// Writes docs/fixtures.md and fixtures/examples/<collection>.json from the collection schemas
// (src/docs-gen/fixtures-doc.ts, built): `npm run docs:fixtures`. test/docs/fixtures-doc.test.ts fails when they are stale.
import { mkdirSync, writeFileSync } from 'node:fs'
import { fixtureExamples, fixturesMarkdown } from '../dist/src/docs-gen/fixtures-doc.js'

mkdirSync('fixtures/examples', { recursive: true })
for (const [name, rows] of Object.entries(fixtureExamples()))
  writeFileSync(`fixtures/examples/${name}.json`, JSON.stringify(rows, null, 2) + '\n')
mkdirSync('docs', { recursive: true })
writeFileSync('docs/fixtures.md', fixturesMarkdown())
