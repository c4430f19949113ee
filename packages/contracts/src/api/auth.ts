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
    request: mutation('service', MagicLinkRequest, MagicLinkAccepted),
    verify: mutation('service', MagicLinkVerify, TokenPair),
  },
  tokens: {
    refresh: mutation('service', RefreshRequest, TokenPair),
    jwks: query('service', z.object({}), Jwks),
  },
  apiKeys: {
    create: mutation('tenant', CreateApiKeyInput, ApiKeyCreated),
    list: query('tenant', z.object({}), listOf(ApiKey)),
    revoke: mutation('tenant', ById, z.object({ revoked: z.literal(true) })),
    verify: mutation('service', z.object({ key: text({ max: 200 }) }), Identity),
  },
} as const;
