import { http, HttpResponse } from 'msw'
import { setupWorker } from 'msw/browser'

// The app's own handler, for a third-party API the sandbox knows nothing of.
export const worker = setupWorker(
  http.get('https://weather.example.test/today', () => HttpResponse.json({ sky: 'clear' })),
)
