// Imported first by every test file here: before any package loads, checks
// that this Node.js satisfies the `engines.node` range of every package in
// the lockfile, and that node_modules holds the lockfile's exact versions.
// A mismatch throws, naming the package and the fix, so a too-old Node.js
// (Debian 12 ships 18.20) or a stale install fails here in one clear line
// instead of deep inside a package, or not at all.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";

const here = dirname(fileURLToPath(import.meta.url));
const lock = JSON.parse(readFileSync(join(here, "package-lock.json"), "utf8"));

const problems = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  const name = path === "" ? "tests/wire/js" : path.replace(/^.*node_modules\//, "");
  const range = entry.engines?.node;
  if (range && !semver.satisfies(process.version, range)) {
    problems.push(`${name}@${entry.version ?? ""} needs Node.js ${range}`);
  }
  if (path === "" || entry.optional) continue;
  let installed;
  try {
    installed = JSON.parse(readFileSync(join(here, path, "package.json"), "utf8")).version;
  } catch {
    installed = "nothing";
  }
  if (installed !== entry.version) {
    problems.push(`${path} holds ${installed}, the lockfile says ${entry.version}`);
  }
}
if (problems.length) {
  throw new Error(
    `tests/wire/js cannot run on Node.js ${process.version} with this install:\n  ` +
    problems.join("\n  ") +
    "\nFix: run `tools/setup.sh --test` (npm ci from the lockfile); if a package needs a newer " +
    "Node.js than Debian 12's, pin in package.json the newest release whose engines accept " +
    "Node.js 18 (an `overrides` entry for a transitive one) and run `npm install`.");
}
