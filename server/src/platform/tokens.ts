// Access and refresh tokens: JWTs (RFC 9068 claims) signed HS256 with the environment's key, whose issuer
// and audience name the environment, so a token of one environment is refused by the other.
import { createHash, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { Environment } from '../config.ts';

export const ACCESS_TOKEN_SECONDS = 900;
/** Refresh tokens live 30 days (designed: the interface leaves the duration to the OAuth standard). */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
export const CRM_ACCESS_TOKEN_SECONDS = 3600;

export type Audience = 'api' | 'crm';

export interface TokenClaims {
  /** The API key (client id) the token was issued to. */
  clientId: string;
  /** Who acts: the client id, or a management user's id for CRM tokens. */
  subject: string;
  jti: string;
  expiresAt: number;
}

export class InvalidTokenError extends Error {}

const issuer = (env: Environment): string => `payment-gateway:${env}`;
const audienceOf = (env: Environment, audience: Audience, kind: 'access' | 'refresh'): string =>
  `payment-gateway:${env}:${audience}:${kind}`;

/** Verified tokens remembered at most (the oldest is forgotten first). */
const VERIFIED_CACHE_SIZE = 10_000;

export class TokenService {
  /** Imported once: a raw key given to jose is imported again on every sign and verify. */
  private readonly key: KeyObject;
  /**
   * Tokens already verified, with their claims, until they expire: a client sends the same token for its whole
   * life, and its signature need not be checked again. Only a token that verified is remembered (bounded, in
   * memory, never written anywhere); whether its API key is still active is checked on every request.
   */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly environment: Environment,
    signingKey: string,
    private readonly now: () => number = () => Date.now(),
  ) {
    const raw = Buffer.from(signingKey, 'base64');
    if (raw.length < 32) throw new Error('the signing key must hold at least 32 bytes');
    this.key = createSecretKey(raw);
  }

  private async sign(kind: 'access' | 'refresh', audience: Audience, clientId: string, subject: string, seconds: number): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({ client_id: clientId })
      .setProtectedHeader({ alg: 'HS256', typ: kind === 'access' ? 'at+jwt' : 'rt+jwt' })
      .setIssuer(issuer(this.environment))
      .setAudience(audienceOf(this.environment, audience, kind))
      .setSubject(subject)
      .setIssuedAt(iat)
      .setExpirationTime(iat + seconds)
      .setJti(randomBytes(16).toString('hex'))
      .sign(this.key);
  }

  /** A token pair for a client (audience `api`) or a management user (audience `crm`). */
  async issue(audience: Audience, clientId: string, subject: string): Promise<{ accessToken: string; refreshToken: string; expiresIn: number }> {
    const expiresIn = audience === 'api' ? ACCESS_TOKEN_SECONDS : CRM_ACCESS_TOKEN_SECONDS;
    return {
      accessToken: await this.sign('access', audience, clientId, subject, expiresIn),
      refreshToken: await this.sign('refresh', audience, clientId, subject, REFRESH_TOKEN_SECONDS),
      expiresIn,
    };
  }

  /** Verifies a token of this environment, kind and audience; HS256 only (so `alg: none` never passes). */
  async verify(token: string, kind: 'access' | 'refresh', audience: Audience): Promise<TokenClaims> {
    const cacheKey = `${kind}:${audience}:${token}`;
    const known = this.verified.get(cacheKey);
    if (known !== undefined) {
      // Expiry is checked against the clock on every use, as jose would (the clock may be moved in tests).
      if (known.expiresAt * 1000 > this.now()) return known;
      this.verified.delete(cacheKey);
    }
    const claims = await this.verifySignature(token, kind, audience);
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(cacheKey, claims);
    return claims;
  }

  private async verifySignature(token: string, kind: 'access' | 'refresh', audience: Audience): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: issuer(this.environment),
        audience: audienceOf(this.environment, audience, kind),
        typ: kind === 'access' ? 'at+jwt' : 'rt+jwt',
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'jti', 'exp', 'iat', 'client_id'],
      });
      const clientId = payload.client_id;
      if (typeof clientId !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string') {
        throw new InvalidTokenError('the token lacks its claims');
      }
      return { clientId, subject: payload.sub, jti: payload.jti, expiresAt: payload.exp ?? 0 };
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError('The access token has expired.');
      throw new InvalidTokenError('The access token is not valid.');
    }
  }
}

/** A new random signing key (base64 of 32 bytes). */
export const newSigningKey = (): string => randomBytes(32).toString('base64');

/** A new API key: the client id and the secret, shown once. */
export function newApiKey(): { clientId: string; clientSecret: string } {
  return { clientId: `pgw_ck_${randomBytes(8).toString('hex')}`, clientSecret: `pgw_cs_${randomBytes(32).toString('base64url')}` };
}

/** Secrets are 256-bit random values, so a plain SHA-256 keeps them safe at rest; only the hash is stored. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
