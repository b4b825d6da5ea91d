import { useCallback, useEffect, useState } from 'react'

interface Notification {
  id: string
  name: string
  type: string
  status: 'reviewed' | 'unreviewed'
  createdAt: string
}

type State =
  | { kind: 'loading' }
  | { kind: 'ready'; items: Notification[]; unreviewedCount: number }
  | { kind: 'rate-limited'; retryAfter: number | null }
  | { kind: 'expired' }
  | { kind: 'error'; status: number; message: string }

export interface NotificationListProps {
  /** Bearer token of the signed-in user. */
  token?: string
  /** Where the API lives; '' for the page's own origin. */
  apiBase?: string
}

/** The latest notifications of the signed-in user's client, with the states a real API puts it in. */
export function NotificationList({ token, apiBase = '' }: NotificationListProps) {
  const [state, setState] = useState<State>({ kind: 'loading' })
  const headers = token ? { authorization: `Bearer ${token}` } : undefined

  const load = useCallback(async () => {
    setState({ kind: 'loading' })
    const res = await fetch(`${apiBase}/api/notifications?limit=5`, { headers })
    if (res.status === 429) {
      const retryAfter = res.headers.get('retry-after')
      return setState({ kind: 'rate-limited', retryAfter: retryAfter === null ? null : Number(retryAfter) })
    }
    if (res.status === 401) return setState({ kind: 'expired' })
    const body = await res.json().catch(() => ({}))
    if (!res.ok)
      return setState({ kind: 'error', status: res.status, message: body.message ?? body.error ?? res.statusText })
    setState({ kind: 'ready', items: body.data.notifications, unreviewedCount: body.data.unreviewedCount })
  }, [token, apiBase])

  useEffect(() => {
    void load()
  }, [load])

  const review = async (id: string) => {
    await fetch(`${apiBase}/api/notifications/${id}`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'reviewed' }),
    })
    await load()
  }

  return (
    <section
      aria-label="Notifications"
      data-state={state.kind}
      style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 480 }}>
      <h2>Notifications</h2>
      {state.kind === 'loading' && <p>Loading…</p>}
      {state.kind === 'rate-limited' && (
        <p role="alert">
          Too many requests.{' '}
          {state.retryAfter === null ? (
            'Try again later.'
          ) : (
            <>
              Retry in <span data-testid="retry-after">{state.retryAfter}</span> s.
            </>
          )}{' '}
          <button onClick={() => void load()}>Retry</button>
        </p>
      )}
      {state.kind === 'expired' && <p role="alert">Your session has expired. Please sign in again.</p>}
      {state.kind === 'error' && (
        <p role="alert">
          The API answered {state.status}: {state.message}
        </p>
      )}
      {state.kind === 'ready' && (
        <>
          <p>
            <span data-testid="unreviewed">{state.unreviewedCount}</span> unreviewed
          </p>
          {state.items.length === 0 ? (
            <p>No notifications.</p>
          ) : (
            <ul>
              {state.items.map((n) => (
                <li key={n.id} data-status={n.status}>
                  {n.name}{' '}
                  <small>
                    ({n.type}, {new Date(n.createdAt).toLocaleDateString('en-GB')})
                  </small>{' '}
                  {n.status === 'unreviewed' && <button onClick={() => void review(n.id)}>Mark reviewed</button>}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  )
}
