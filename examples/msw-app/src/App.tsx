import { useEffect, useState } from 'react'
import { withBackoff, writeOnce } from './api'

interface Notification {
  id: string
  name: string
  status: string
}

async function signIn(): Promise<string> {
  const res = await withBackoff(() =>
    fetch('/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
    }),
  )
  return res.headers.get('set-auth-token') ?? ''
}

export function App() {
  const [token, setToken] = useState('')
  const [items, setItems] = useState<Notification[] | undefined>()
  const [sky, setSky] = useState('')
  const [error, setError] = useState('')

  const load = async (t: string) => {
    const res = await withBackoff(() =>
      fetch('/api/notifications?limit=3', { headers: { authorization: `Bearer ${t}` } }),
    )
    if (!res.ok) return setError(`notifications: ${res.status}`)
    setItems((await res.json()).data.notifications)
  }

  useEffect(() => {
    signIn()
      .then((t) => (setToken(t), load(t)))
      .catch((e: Error) => setError(e.message))
    fetch('https://weather.example.test/today')
      .then((r) => r.json())
      .then(
        (w) => setSky(w.sky),
        (e: Error) => setError(e.message),
      )
  }, [])

  const review = async (id: string) => {
    // A failed write is checked by a read before it is sent again (docs/conduct.md).
    await writeOnce(
      () =>
        fetch(`/api/notifications/${id}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ status: 'reviewed' }),
        }),
      async () => {
        const res = await fetch(`/api/notifications?limit=50`, { headers: { authorization: `Bearer ${token}` } })
        const list = res.ok ? ((await res.json()).data.notifications as Notification[]) : []
        return list.some((n) => n.id === id && n.status === 'reviewed')
      },
    )
    await load(token)
  }

  return (
    <main>
      <p id="sky">{sky && `sky: ${sky}`}</p>
      {error && <p id="error">{error}</p>}
      <ul id="notifications">
        {items?.map((n) => (
          <li key={n.id} data-status={n.status}>
            {n.name} ({n.status}) <button onClick={() => review(n.id)}>reviewed</button>
          </li>
        ))}
      </ul>
    </main>
  )
}
