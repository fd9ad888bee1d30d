import { StandardSchemaValidationPipe } from '@nestjs/common';
import { ValidationError } from '@statehouse/state';

/** zod (Standard Schema) validation from libs/contracts; failures become `validation_failed`. */
export function createValidationPipe(): StandardSchemaValidationPipe {
  return new StandardSchemaValidationPipe({
    exceptionFactory: (issues) => {
      const list = [...issues].slice(0, 50).map((issue) => ({
        path: (issue.path ?? [])
          .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
          .join('.'),
        message: issue.message,
      }));
      const summary = list.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
      return new ValidationError(summary || 'invalid request', list);
    },
  });
}
