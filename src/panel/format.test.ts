import { describe, expect, it } from 'vitest'
import { viaLabel } from './format.js'

describe('viaLabel', () => {
  it('names the MCP tool that made a request; a plain HTTP request has none', () => {
    expect(viaLabel({ via: 'mcp', tool: 'listLayers' })).toBe('MCP tool listLayers')
    expect(viaLabel({})).toBeUndefined()
  })
})
