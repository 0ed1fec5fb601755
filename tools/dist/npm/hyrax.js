#!/usr/bin/env node
// bin/hyrax.js: the `hyrax` command of the npm package (the way esbuild ships). npm installs only
// the optional dependency whose "os" and "cpu" match this machine; this finds its binary and runs
// it with the same arguments and standard streams, passes signals on and exits with its status.
// No install script and no download: the binary and its model are in that package.
// tools/dist/npm.py writes the table of platforms below when it builds the package.
"use strict";
const { spawn } = require("child_process");

const PLATFORMS = {} /* @PLATFORMS@ */;

function binaryPath() {
  const key = `${process.platform} ${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    console.error(`hyrax: no build for ${key}; there are builds for: ${Object.keys(PLATFORMS).join(", ")}`);
    process.exit(1);
  }
  try {
    return require.resolve(`${pkg}/bin/hyrax`);
  } catch (e) {
    const version = require("../package.json").version;
    console.error(`hyrax: ${pkg}, the package with the binary for ${key}, is not installed (npm leaves ` +
                  `optional dependencies out with --omit=optional, or when it cannot fetch them): ` +
                  `npm install ${pkg}@${version}`);
    process.exit(1);
  }
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (e) => {
  console.error(`hyrax: cannot run ${e.path}: ${e.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code);
  }
});
