import { describe, expect, it } from 'vitest'
import type { Admin } from '../../src/core/admin/admin.js'
import type { SandboxServer } from '../../src/adapters/node/index.js'
import type { SandboxHandle } from '../../src/adapters/browser/index.js'
import type { SandboxLoaded } from '../../src/adapters/storybook/index.js'
import type { SandboxControl } from '../../src/adapters/playwright/index.js'

// Compiled by `npm test`'s typecheck: every entry hands out the one admin interface.
const fromNode = (s: SandboxServer): Admin<never> => s.admin()
const fromBrowser = (h: SandboxHandle): Admin<never> => h.admin
const fromStorybook = (l: SandboxLoaded): Admin<never> => l.admin
const fromPlaywright = (c: SandboxControl): Admin<never> => c

describe('the admin interface', () => {
  it('is what the node, browser, Storybook and Playwright entries hand out (checked by the typecheck)', () => {
    expect([fromNode, fromBrowser, fromStorybook, fromPlaywright]).toHaveLength(4)
  })
})
