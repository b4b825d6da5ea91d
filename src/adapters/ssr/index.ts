/**
 * `fleet-sandbox/ssr`: a page rendered on the server reads the same world as the browser that
 * asked for it. The browser's request carries its world (the `x-sandbox-id` header, or the
 * `sandbox-id` cookie `fleet-sandbox/playwright` sets); the server's own calls to the sandbox
 * must carry it on. No runtime is assumed: Next.js, React Router, SvelteKit, Express.
 */
export {
  type HeadersLike,
  type Incoming,
  type IncomingHeaders,
  sandboxHeaders,
  withSandbox,
} from '../../core/sandbox/forward.js'
