import { main } from './cli.js';

/** Entry point: `plinth <command>`. */
main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`plinth: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
