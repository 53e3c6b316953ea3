/** `plinth --help` and `plinth <command> --help`: one place for every command's usage. */
export const COMMAND_HELP: Record<string, string> = {
  serve: `Usage: plinth serve [--no-worker]

Runs the API and, unless --no-worker, the background worker in the same process. Migrates the database on start.
On an empty data directory it creates a demo organization and prints its keys once.

Options:
  --no-worker   serve the API only (scale-out: run \`plinth worker\` elsewhere)

Environment: PORT (default 3000), HOST (default 127.0.0.1), PLINTH_DATA_DIR, DATABASE_URL, … (see README.md).`,
  worker: `Usage: plinth worker

Runs only the background worker (ingestion, generation, renders, exports, webhooks).`,
  migrate: `Usage: plinth migrate

Applies database migrations and exits.`,
  bootstrap: `Usage: plinth bootstrap --org NAME --email EMAIL [--password P] [--plan none|trial|active]
                        [--credits N] [--active-product-cap N] [--allowed-domain ORIGIN]... [--json]

Creates an organization, its owner, a project and one key of each type. The same email again adds a new
organization to that user. --json prints {"org_id","user_id","secret_key","project_id","publishable_key"}.`,
  member: `Usage: plinth member --org-id ORG --email EMAIL [--password P] [--role owner|admin|member] [--json]

Adds a user to an organization with a role (default member).`,
  credits: `Usage: plinth credits --org-id ORG [--add N [--reason TEXT]] [--json]

With --add: grants N credits to the organization (a ledger entry with the reason). Without: prints the
balance and the last ledger entries.`,
  segmenter: `Usage: plinth segmenter [status | install]

status (default): prints the cut-out segmenter in use (PLINTH_SEGMENTER, PLINTH_SEGMENTER_MODEL).
install: installs the IS-Net model package @imgly/background-removal-data (AGPL-3.0, so never a dependency
of Plinth) next to Plinth without changing package.json, then checks that the model loads and cuts out a
test image.`,
  'capture-mat': `Usage: plinth capture-mat [--out FILE]

Writes the capture mat, a one-page A4 PDF (the same as GET /capture-mat.pdf), to FILE (default
capture-mat.pdf; - writes it to stdout). Print it at 100 % (no scaling) and check the 50 mm ruler; stand a
product with no texture of its own on it, and the photos give the model its cameras and its real size.`,
};

export const USAGE = `Usage: plinth <command> [options]

Commands:
  serve [--no-worker]   run the API (and, unless --no-worker, the worker in the same process)
  worker                run only the background worker
  migrate               apply database migrations and exit
  bootstrap             create an organization, its owner, a project and one key of each type
  member                add a user to an organization
  credits               grant credits to an organization, or show its balance and ledger
  segmenter             show the cut-out segmenter, or install the IS-Net model (AGPL-3.0)
  capture-mat           write the printable capture mat (PDF) to a file

Options:
  --help, -h            show this help, or a command's: plinth <command> --help
  --version, -v         print the version

Configuration comes from the environment; see README.md.`;

export const wantsHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');
