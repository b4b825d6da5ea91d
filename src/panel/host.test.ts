import { describe, expect, it } from 'vitest'
import { panelBase } from './host.js'

describe('panelBase', () => {
  it('is the first explicit origin the sandbox answers, else the page itself', () => {
    expect(panelBase(undefined)).toBe('')
    expect(panelBase(['*'])).toBe('')
    expect(panelBase(['/backend/'])).toBe('/backend')
    expect(panelBase(['https://*.example.com', 'https://api.example.com/'])).toBe('https://api.example.com')
  })
})
