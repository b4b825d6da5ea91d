import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { ControlApi } from './api.js'

interface ClockAnswer {
  now: string
  frozen: boolean
}

/**
 * The sandbox clock as it runs: read from `GET /__sandbox/clock` when the world or its state
 * changes (`version`), then advanced here each second unless frozen, so the panel shows the
 * time the sandbox answers with without asking it every second.
 */
export function useClock(
  api: ControlApi,
  version: number,
  fail: (e: unknown) => void,
): { now: string; frozen: boolean } | undefined {
  const [read, setRead] = useState<{ clock: ClockAnswer; at: number } | undefined>()
  const [, tick] = useState(0)
  useEffect(() => {
    setRead(undefined)
    api.call<ClockAnswer>('GET', '/clock').then((clock) => setRead({ clock, at: Date.now() }), fail)
  }, [api, version])
  useEffect(() => {
    if (!read || read.clock.frozen) return
    const timer = setInterval(() => tick((n) => n + 1), 1000)
    return () => clearInterval(timer)
  }, [read])
  if (!read) return undefined
  if (read.clock.frozen) return read.clock
  return { now: new Date(Date.parse(read.clock.now) + Date.now() - read.at).toISOString(), frozen: false }
}

/** The clock to the second, as the world line and the Scenarios tab show it. */
export function Clock({ clock }: { clock: { now: string; frozen: boolean } | undefined }) {
  if (!clock) return html`<span class="clock">…</span>`
  return html`<time class="clock" datetime=${clock.now}>${clock.now.slice(0, 19)}Z</time>${clock.frozen ? ' (frozen)' : ''}`
}
