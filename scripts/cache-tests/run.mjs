// Runs the public HTTP caching test suite (http-tests/cache-tests) against ImagePipeline.
//
//   node scripts/cache-tests/run.mjs <suite checkout> <cachedimage-cache-tests binary> [results.json]
//
// The suite is not part of this repository: fetch it yourself (git clone
// https://github.com/http-tests/cache-tests). This script starts the suite's own origin server,
// puts a proxy in front of it that wraps every response body in a tiny PNG (an image pipeline
// only accepts images; the original bytes ride in a private `bdYx` chunk), and runs the
// suite's own client and checks (test-engine/client, browser mode: a private cache) with
// `fetch` replaced by the Swift runner, which loads each URL through one default ImagePipeline
// per test and answers with ImageResponse.httpResponse and the unwrapped body.
import { spawn } from 'node:child_process'
import http from 'node:http'
import path from 'node:path'
import readline from 'node:readline'
import fs from 'node:fs'
import zlib from 'node:zlib'

const [suite, runnerPath, outPath] = process.argv.slice(2)
if (!suite || !runnerPath) {
  console.error('usage: node run.mjs <suite checkout> <runner binary> [results.json]')
  process.exit(2)
}
const originPort = 18000 + Math.floor(Math.random() * 1000)
const proxyPort = originPort + 1000

// The suite's origin server.
const origin = spawn(process.execPath, [path.join(suite, 'test-engine/server/server.mjs')], {
  cwd: suite,
  env: { ...process.env, npm_config_protocol: 'http', npm_config_port: String(originPort), npm_config_pidfile: `/tmp/cache-tests-origin-${originPort}.pid` },
  stdio: ['ignore', 'pipe', 'inherit']
})
await new Promise(resolve => origin.stdout.once('data', resolve))

// CRC-32 for PNG chunks.
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
function crc32 (buffer) {
  let c = 0xffffffff
  for (const byte of buffer) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
function chunk (type, data) {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}
// A 1x1 grey PNG carrying `body` in a private ancillary chunk.
function wrap (body) {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('bdYx', body),
    chunk('IDAT', zlib.deflateSync(Buffer.from([0, 0x80]))), chunk('IEND', Buffer.alloc(0))
  ])
}

// The wrapping proxy: same status and header fields, the body as a PNG. A body's
// `Content-Length` must become the PNG's; the origin's value and the PNG's ride along in two
// private fields so that the client can undo exactly that substitution (and nothing a cache did).
// A `304`'s `Content-Length` (it has no body) is passed on as the origin sent it.
const unwrappedLength = 'X-Cachedimage-Unwrapped-Length'
const wrappedLength = 'X-Cachedimage-Wrapped-Length'
const proxy = http.createServer((req, res) => {
  let received // the origin's response, once its headers are in
  const parts = []
  let answered = false
  const answer = up => {
    if (answered) return
    answered = true
    const noBody = req.method === 'HEAD' || [204, 304].includes(up.statusCode) || up.statusCode < 200
    const body = noBody ? Buffer.alloc(0) : wrap(Buffer.concat(parts))
    const headers = []
    let originLength
    for (let i = 0; i < up.rawHeaders.length; i += 2) {
      const name = up.rawHeaders[i]
      if (name.toLowerCase() === 'content-length') originLength = up.rawHeaders[i + 1]
      if (['content-length', 'transfer-encoding'].includes(name.toLowerCase())) continue
      headers.push(name, up.rawHeaders[i + 1])
    }
    if (!noBody) {
      headers.push('Content-Length', String(body.length))
      if (originLength !== undefined) headers.push(unwrappedLength, originLength, wrappedLength, String(body.length))
    } else if (up.statusCode === 304 && originLength !== undefined) {
      headers.push('Content-Length', originLength)
    }
    res.writeHead(up.statusCode, up.statusMessage, headers)
    res.end(body)
  }
  const declaredLength = up => up.headers['content-length'] === undefined ? Infinity : Number(up.headers['content-length'])
  const received_ = () => parts.reduce((sum, part) => sum + part.length, 0)
  let failed = false
  const upstream = http.request({ host: '127.0.0.1', port: originPort, path: req.url, method: req.method, headers: req.headers, agent: false }, up => {
    received = up
    up.on('data', d => {
      parts.push(d)
      // After a parse error, the declared body is whole once its last byte is in.
      if (failed && received_() >= declaredLength(up)) answer(up)
    })
    up.on('end', () => answer(up))
  })
  // An origin that sends more than its `Content-Length` (a test that declares a shorter length)
  // leaves bytes the parser rejects, reported before the declared body has been read: that
  // response is still delivered whole (as a browser reads it), so it is answered as soon as its
  // declared length is in. An error before any response drops the connection, and so does a
  // declared body that never completes.
  upstream.on('error', () => {
    if (!received) return res.destroy()
    failed = true
    if (received_() >= declaredLength(received)) return answer(received)
    setTimeout(() => { if (!answered) res.destroy() }, 5000)
  })
  req.pipe(upstream)
})
await new Promise(resolve => proxy.listen(proxyPort, '127.0.0.1', resolve))

// The Swift runner: one JSON line per fetch, answered in any order.
const runner = spawn(runnerPath, [], { stdio: ['pipe', 'pipe', 'inherit'] })
const pending = new Map()
let nextId = 1
readline.createInterface({ input: runner.stdout }).on('line', line => {
  const reply = JSON.parse(line)
  const waiter = pending.get(reply.id)
  pending.delete(reply.id)
  if (waiter) waiter(reply)
})
function ask (command) {
  const id = nextId++
  return new Promise(resolve => {
    pending.set(id, resolve)
    runner.stdin.write(JSON.stringify({ id, ...command }) + '\n')
  })
}

const realFetch = globalThis.fetch
const base = `http://127.0.0.1:${originPort}`
globalThis.fetch = async (url, init = {}) => {
  if (!String(url).includes('/test/')) return realFetch(url, init)
  const test = String(url).split('/test/')[1].split(/[/?]/)[0]
  const headers = (init.headers || []).map(([name, value]) => [name, String(value)])
  const reply = await ask({
    test,
    url: String(url).replace(base, `http://127.0.0.1:${proxyPort}`),
    method: init.method || 'GET',
    headers,
    cache: init.cache || 'default'
  })
  if (reply.error) throw new TypeError(`ImagePipeline: ${reply.error}`)
  const status = reply.status >= 200 && reply.status <= 599 ? reply.status : 599
  const nullBody = [204, 205, 304].includes(status)
  const responseHeaders = new Headers()
  for (const [name, value] of Object.entries(reply.headers || {})) {
    try { responseHeaders.append(name, value) } catch {}
  }
  // Undo the proxy's Content-Length substitution: only a value that is still the PNG's length
  // becomes the origin's again.
  if (responseHeaders.has(unwrappedLength)) {
    if (responseHeaders.get('Content-Length') === responseHeaders.get(wrappedLength)) {
      responseHeaders.set('Content-Length', responseHeaders.get(unwrappedLength))
    }
    responseHeaders.delete(unwrappedLength)
    responseHeaders.delete(wrappedLength)
  }
  return new Response(nullBody ? null : reply.body, { status, headers: responseHeaders })
}

const { default: tests } = await import(path.resolve(suite, 'tests/index.mjs'))
const { runTests, getResults } = await import(path.resolve(suite, 'test-engine/client/runner.mjs'))
await runTests(tests, true, base)
const results = getResults()
if (outPath) fs.writeFileSync(outPath, JSON.stringify(results, null, 2))
else console.log(JSON.stringify(results, null, 2))

runner.stdin.end()
proxy.close()
origin.kill()
process.exit(0)
