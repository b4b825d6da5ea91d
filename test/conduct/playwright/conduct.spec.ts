import { expect, test } from '../../../src/adapters/playwright/index.js'

/** Only `request`: the conduct needs no browser. */
const auth = { authorization: 'Bearer atk_sandbox_admin' }

test('careless: sends a 404 again', async ({ request }) => {
  for (let i = 0; i < 2; i++)
    expect((await request.get('/api/v1/technician/get/nope', { headers: auth })).status()).toBe(404)
})

test('well-behaved: reads the list after the 404', async ({ request }) => {
  expect((await request.get('/api/v1/technician/get/nope', { headers: auth })).status()).toBe(404)
  expect((await request.get('/api/v1/technician/list', { headers: auth })).status()).toBe(200)
})

test.describe('warned', () => {
  test.use({ conduct: 'warn' })
  test('careless, warned: sends a 404 again', async ({ request }) => {
    for (let i = 0; i < 2; i++) await request.get('/api/v1/technician/get/nope', { headers: auth })
  })
})

test.describe('off', () => {
  test.use({ conduct: 'off' })
  test('careless, not looked at', async ({ request }) => {
    for (let i = 0; i < 2; i++) await request.get('/api/v1/technician/get/nope', { headers: auth })
  })
})
