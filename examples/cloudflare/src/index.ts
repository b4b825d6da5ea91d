// The whole Worker: fleet-sandbox/worker's fetch handler and its two Durable Object classes.
export { default, SandboxDirectory, SandboxObject } from 'fleet-sandbox/worker'
