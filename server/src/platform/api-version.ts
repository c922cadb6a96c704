// Which `x-api-version` values the /pay-int-api family accepts: `1` and every version of the contract's major up
// to the contract's own (info.version), so that a minor release keeps every older client's header valid and a
// client of the newest one is not refused.
import { apiSpec } from '@pgw/client/server';

const VERSION = /^(0|[1-9]\d*)(?:\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?)?$/;

/** The contract's version as numbers (info.version, three parts by semantic versioning). */
function parts(version: string): [number, number, number] {
  const match = VERSION.exec(version.trim());
  if (!match) throw new Error(`info.version ${version} is not a semantic version`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

/** Whether `given` names the contract's major at or below the contract's version (`1`, `1.0`, `1.1.0` for 1.1.0). */
export function acceptsApiVersion(given: string, contract: string): boolean {
  const match = VERSION.exec(given.trim());
  if (!match) return false;
  const [major, minor, patch] = parts(contract);
  if (Number(match[1]) !== major) return false;
  if (match[2] === undefined) return true;
  if (Number(match[2]) !== minor) return Number(match[2]) < minor;
  return match[3] === undefined || Number(match[3]) <= patch;
}

/** The contract's version, which the accepted header values go up to. */
export const CONTRACT_VERSION = (apiSpec as { info: { version: string } }).info.version;

/** The refusal's words: which values are accepted. */
export const acceptedVersions = (contract: string): string => {
  const [major] = parts(contract);
  return `accepted versions are ${String(major)} and ${String(major)}.x up to ${contract}`;
};
