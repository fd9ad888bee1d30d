import { type CreateUserRequest, type UpdateUserRequest, type User, UserSchema } from '@statehouse/contracts';
import { arrayOf, request } from './client';

/** `/v1/users`: dashboard users (administrators only). */

export function listUsers(): Promise<User[]> {
  return request('GET /v1/users', arrayOf(UserSchema), (api) => api.GET('/v1/users'));
}

export function createUser(body: CreateUserRequest): Promise<User> {
  return request('POST /v1/users', UserSchema, (api) => api.POST('/v1/users', { body }));
}

export function updateUser(id: string, body: UpdateUserRequest): Promise<User> {
  return request('PATCH /v1/users/{id}', UserSchema, (api) =>
    api.PATCH('/v1/users/{id}', { params: { path: { id } }, body }),
  );
}
