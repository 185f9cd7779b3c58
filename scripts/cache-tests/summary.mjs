// Counts the passes of a results file from run.mjs beside the browsers' published results, on
// the tests that apply to a private image cache through ImagePipeline's public API.
//
//   node scripts/cache-tests/summary.mjs <suite checkout> results.json
//
// Browser mode runs every test that is not `cdn_only` or `browser_skip`. Left out of those:
// other methods than GET (an image load is a GET) and statuses other than 200/203/304 from the
// origin or to the client (a 204 has no body, and an error, partial or redirect body is not an
// image; a 504 to the client is `only-if-cached` with nothing cached, which the runner reports
// as 504).
import path from 'node:path'
import fs from 'node:fs'

const [suite, resultsPath] = process.argv.slice(2)
if (!suite || !resultsPath) {
  console.error('usage: node summary.mjs <suite checkout> <results.json>')
  process.exit(2)
}
const { default: testSets } = await import(path.resolve(suite, 'tests/index.mjs'))
const load = file => JSON.parse(fs.readFileSync(file, 'utf8'))
const columns = {
  CachedImage: load(resultsPath),
  Safari: load(path.join(suite, 'results/safari.json')),
  Chrome: load(path.join(suite, 'results/chrome.json')),
  Firefox: load(path.join(suite, 'results/firefox.json'))
}

const imageStatuses = new Set([200, 203, 304])
// 504 is what fetch shows for `only-if-cached` with nothing cached: the pipeline's `.notCached`.
const clientStatuses = new Set([...imageStatuses, 504])
function applies (test) {
  if (test.cdn_only === true || test.browser_skip === true) return false
  return test.requests.every(request =>
    (request.request_method || 'GET') === 'GET' &&
    (request.response_status === undefined || imageStatuses.has(request.response_status[0])) &&
    (request.expected_status === undefined || clientStatuses.has(request.expected_status)))
}
const tests = testSets.flatMap(set => set.tests).filter(applies)
const strict = tests.filter(test => ['required', 'optimal'].includes(test.kind || 'required'))
const passes = (results, list) => list.filter(test => results[test.id] === true).length

console.log(`| | applicable (${tests.length}) | required + optimal (${strict.length}) |`)
console.log('|---|---:|---:|')
for (const [name, results] of Object.entries(columns)) {
  console.log(`| ${name} | ${passes(results, tests)} | ${passes(results, strict)} |`)
}
const required = tests.filter(test => (test.kind || 'required') === 'required')
const behindSafari = required.filter(test => columns.Safari[test.id] === true && columns.CachedImage[test.id] !== true)
console.log(`\nRequired tests Safari passes and CachedImage fails: ${behindSafari.length}`)
for (const test of behindSafari) console.log(`- ${test.id}: ${JSON.stringify(columns.CachedImage[test.id])}`)
