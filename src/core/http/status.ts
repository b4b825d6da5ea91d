/** The three error body shapes the spec says clients meet. */
export type ErrorShape = 'standard' | 'error' | 'message'

const reasons: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

export const reasonPhrase = (status: number) => reasons[status] ?? 'Error'

/**
 * Routes documented with `{error}` bodies answer 500 as `{message}` (the spec's table);
 * everything else uses `{statusCode, message, error}`.
 */
export function errorBody(shape: ErrorShape, status: number, message: string): unknown {
  if (shape === 'message' || (shape === 'error' && status >= 500)) return { message }
  if (shape === 'error') return { error: message }
  return { statusCode: status, message, error: reasonPhrase(status) }
}
