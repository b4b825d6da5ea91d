import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const SECRET = 'hunter2-secret-password'

/** Issue 25 item 2: a password sent to the sandbox is never kept in the journal, refused or accepted. */
describe.each(runtimes)('passwords stay out of the journal through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it("keeps neither a refused nor an accepted sign-in's password, nor a new one, nor an unparseable body's", async () => {
    const s = rt.fresh('secrets')
    const signIn = (body: string) => s.send('POST', '/api/session-auth/sign-in/email', body)
    expect((await signIn(JSON.stringify({ email: 'admin@fleet.test', password: SECRET }))).status).toBe(401)
    expect((await signIn(JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }))).status).toBe(200)
    expect((await signIn(`{"email":"admin@fleet.test","password":"${SECRET}"`)).status).toBe(400)
    expect((await signIn(JSON.stringify({ email: 'admin@fleet.test', password: SECRET.repeat(300) }))).status).toBe(401)
    expect(
      (
        await s.send(
          'POST',
          '/api/auth/password-reset/confirm',
          JSON.stringify({ token: 'nope', password: `${SECRET}-new` }),
        )
      ).status,
    ).toBeGreaterThanOrEqual(400)

    const { requests } = (await s.control.get('/requests')).body
    expect(requests).toHaveLength(5)
    const details = await Promise.all(
      requests.map(async (r: { id: number }) => (await s.control.get(`/requests/${r.id}`)).body),
    )
    expect(JSON.parse(details[0].request.body)).toEqual({ email: 'admin@fleet.test', password: '[not kept]' })
    expect(JSON.parse(details[1].request.body)).toEqual({ email: 'admin@fleet.test', password: '[not kept]' })
    expect(details[2].request.body).toBeNull()
    const everything =
      JSON.stringify(details) +
      (await s.control.get('/requests.har')).text +
      JSON.stringify((await s.control.get('/snapshot')).body.journal)
    expect(everything).not.toContain(SECRET)
    expect(everything).not.toContain('"sandbox"')
  })
})
