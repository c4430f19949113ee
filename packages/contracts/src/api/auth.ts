import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  ApiKey,
  ApiKeyCreated,
  CreateApiKeyInput,
  Identity,
  MagicLinkAccepted,
  MagicLinkRequest,
  MagicLinkVerify,
  RefreshRequest,
  TokenPair,
} from '../auth';
import { ById, listOf, text } from '../common';

export const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) });

/** The auth service's tRPC contract. */
export const authApi = {
  magicLink: {
    request: mutation('service', MagicLinkRequest, MagicLinkAccepted, ['gateway']),
    verify: mutation('service', MagicLinkVerify, TokenPair, ['gateway']),
  },
  tokens: {
    refresh: mutation('service', RefreshRequest, TokenPair, ['gateway']),
    jwks: query('service', z.object({}), Jwks, ['gateway']),
  },
  apiKeys: {
    create: mutation('tenant', CreateApiKeyInput, ApiKeyCreated, ['gateway']),
    list: query('tenant', z.object({}), listOf(ApiKey), ['gateway']),
    revoke: mutation('tenant', ById, z.object({ revoked: z.literal(true) }), ['gateway']),
    verify: mutation('service', z.object({ key: text({ max: 200 }) }), Identity, ['gateway']),
  },
} as const;
