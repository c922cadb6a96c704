// What `npm start` tells a new user: where the API and its docs are, and a token command that pastes into a
// shell as printed (the secrets stay in the credentials file; the command reads them from there).

/** A word for a POSIX shell: single-quoted, with single quotes inside it closed, escaped and reopened. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A `curl` command that asks the token service for merchant `index`'s token, reading its secret from the file. */
export function tokenCommand(baseUrl: string, credentialsFile: string, index = 0): string {
  // node rather than jq: Node.js is on every machine that runs the server.
  const read = (key: 'clientId' | 'clientSecret'): string =>
    `"$(node -p ${shellQuote(`require(${JSON.stringify(credentialsFile)}).merchants[${String(index)}].${key}`)})"`;
  return `curl -s -X POST ${shellQuote(`${baseUrl}/oauth2/token`)} -d grant_type=client_credentials -d scope=offline_access ` +
    `-d client_id=${read('clientId')} -d client_secret=${read('clientSecret')}`;
}

/** The plain-text lines printed under the logs when they go to a terminal. */
export function startupBanner(baseUrl: string, environment: string, credentialsFile: string): string {
  return [
    '',
    `  Payment gateway ${environment} at ${baseUrl}`,
    `  Docs:         ${baseUrl}/docs   (the contract: ${baseUrl}/openapi.json)`,
    `  Credentials:  ${credentialsFile}`,
    // The sandbox's own tools: the dashboard (sign in with a merchant's clientId and clientSecret from the
    // credentials file) and the CLI's event forwarding; a production server serves neither.
    ...(environment === 'sandbox' ? [
      `  Dashboard:    ${baseUrl}/dashboard   (sign in with a merchant's clientId and clientSecret from the credentials file)`,
      `  Events:       PGW_CONFIG=${shellQuote(credentialsFile)} npx pgw listen --forward-to http://127.0.0.1:8080/hooks`,
    ] : []),
    '  Get a token (paste into a shell):',
    `    ${tokenCommand(baseUrl, credentialsFile)}`,
    '',
  ].join('\n');
}
