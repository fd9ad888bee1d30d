import { applyDecorators, Delete, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, type StandardSchemaObject } from '@nestjs/swagger';
import { IdSchema } from '@statehouse/contracts';
import { IfMatchHeader, Mutation } from './api-headers.decorator.js';
import { RevisionEtagInterceptor } from './revision-etag.interceptor.js';

/**
 * The route metadata operations share, each stack declared once: what a controller states of an
 * operation is then its path, its summary and its answer. Every decorator here only gathers ones
 * the OpenAPI document already reads (common/api-headers.decorator.ts, RevisionEtagInterceptor).
 * `applyDecorators` applies its list in order, as a stack of decorators is applied bottom-up: each
 * list is its stack read from the bottom, so the document lists headers as it did.
 */

/** A path parameter that is an id (`:id` unless named). */
export const IdParam = (name = 'id') => Param(name, { schema: IdSchema });

/** The operation's summary and its `200` answer. */
export const Answers = (summary: string, schema: StandardSchemaObject) =>
  applyDecorators(ApiOkResponse({ standardSchema: schema }), ApiOperation({ summary }));

/** A POST that acts on what it names (claim, report, settle, apply) and answers `200`, not `201`. */
export const Action = (path: string) => applyDecorators(HttpCode(200), Mutation(), Post(path));

/**
 * A change checked against the revision the caller read: `If-Match` is documented (required, or
 * optional to take part only when sent) and the answer carries the new revision as its `ETag`.
 */
export const RevisionChecked = (required = true) =>
  applyDecorators(UseInterceptors(RevisionEtagInterceptor), IfMatchHeader(required));

/** A DELETE under `If-Match` (its revision), answered `204`. */
export const RevisionCheckedDelete = (path: string, summary: string) =>
  applyDecorators(
    ApiNoContentResponse(),
    ApiOperation({ summary }),
    HttpCode(204),
    IfMatchHeader(),
    Mutation(),
    Delete(path),
  );
