// Reads a V8 .cpuprofile: the hottest functions by self and inclusive time (bench/profile.mjs,
// bench/profile-workerd.mjs).

/** Self and inclusive time per function (name, file:line), as shares of the sampled time. */
export function summarize({ nodes, samples, timeDeltas }, { top = 25, fromMs = 0 } = {}) {
  let clock = 0
  const during = samples.map((_, i) => (clock += timeDeltas[i] ?? 0) / 1000 >= fromMs)
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const selfTime = new Map()
  samples.forEach((id, i) => during[i] && selfTime.set(id, (selfTime.get(id) ?? 0) + (timeDeltas[i] ?? 0)))
  const key = (n) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`
  const self = new Map()
  const total = new Map()
  let all = 0
  for (const [id, t] of selfTime) {
    all += t
    const n = byId.get(id)
    self.set(key(n), (self.get(key(n)) ?? 0) + t)
    const seen = new Set()
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = key(byId.get(at))
      if (seen.has(k)) continue
      seen.add(k)
      total.set(k, (total.get(k) ?? 0) + t)
    }
  }
  const idle = ['(idle)', '(program)', '(garbage collector)']
  const busy = all - [...self].filter(([k]) => idle.some((i) => k.startsWith(i))).reduce((a, [, t]) => a + t, 0)
  const show = (title, m) => {
    console.log(`\n${title} (share of all samples; busy ${((busy / all) * 100).toFixed(0)}%)`)
    for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`${((t / all) * 100).toFixed(1).padStart(5)}%  ${k}`)
  }
  show('self', self)
  show('inclusive', total)
}
