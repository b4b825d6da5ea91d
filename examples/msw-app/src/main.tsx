import { createRoot } from 'react-dom/client'
import { App } from './App'

async function enableMocking() {
  // Only in development: the production bundle never loads msw or the sandbox.
  if (!import.meta.env.DEV) return
  const { worker } = await import('./mocks/browser')
  const { startSandbox } = await import('fleet-sandbox/browser')
  // One service worker: the sandbox joins the app's own and starts it.
  await startSandbox({ worker })
}

enableMocking()
  .catch((error) => console.error('fleet-sandbox did not start:', error))
  .then(() => createRoot(document.getElementById('root')!).render(<App />))
