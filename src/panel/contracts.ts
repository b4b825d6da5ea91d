import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { ViewProps } from './types.js'
import { save } from './requests.js'

interface StateInfo {
  name: string
  sets: string
  returns: string[]
}

/**
 * The contract of this world's traffic (docs/contracts.md): the Pact file and the OpenAPI
 * document of what the app used, downloaded from the same routes in every runtime (a page
 * under the service worker fetches them too), and the provider states a backend implements.
 */
export function Contracts({ api, fail, version }: ViewProps) {
  const [consumer, setConsumer] = useState('fleet-web')
  const [provider, setProvider] = useState('fleet-backoffice')
  const [overrides, setOverrides] = useState(false)
  const [states, setStates] = useState<StateInfo[]>([])
  const [said, setSaid] = useState('')
  useEffect(() => {
    api.call<{ states: StateInfo[] }>('GET', '/pact/states').then((r) => setStates(r.states), fail)
  }, [api, version])
  const download = async (path: string, name: string) => {
    try {
      const res = await api.raw('GET', path)
      save(await res.blob(), name)
      setSaid(`${name} downloaded.`)
    } catch (error) {
      // A world with no traffic is a 409 that says so: shown here, not as a failure.
      setSaid((error as Error).message)
    }
  }
  const query = new URLSearchParams({ consumer, provider, ...(overrides ? { overrides: 'include' } : {}) })
  const named = states.filter((s) => !/ (exists|does not exist|is on)$/.test(s.name))
  return html`
    <section class="contracts">
      <div class="row">
        <label>Consumer <input value=${consumer} onInput=${(e: Event) => setConsumer((e.target as HTMLInputElement).value)} /></label>
        <label>Provider <input value=${provider} onInput=${(e: Event) => setProvider((e.target as HTMLInputElement).value)} /></label>
        <label><input type="checkbox" checked=${overrides} onChange=${(e: Event) => setOverrides((e.target as HTMLInputElement).checked)} /> keep overrides' answers (marked)</label>
      </div>
      <div class="row">
        <button class="pact" onClick=${() => download(`/contracts/pact?${query}`, `${consumer}-${provider}.json`)}>Pact file ⤓</button>
        <button class="used-openapi" onClick=${() => download('/contracts/openapi', `${consumer}-${provider}.openapi.json`)}>OpenAPI of what the app used ⤓</button>
        <span class="said">${said}</span>
      </div>
      <p class="muted">The backend verifies the Pact file with its state-change URL at <code>${api.url('/pact/states')}</code> here, or implements the states itself (docs/contracts.md). States: ${named.map((s) => s.name).join(', ')}, a record exists or does not, a scenario is on (${states.length} in all).</p>
    </section>
  `
}
