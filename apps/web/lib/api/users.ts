import { type CreateUserRequest, type UpdateUserRequest, type User, UserSchema } from '@statehouse/contracts';
import { arrayOf, request } from './client';

/** `/v1/users`: dashboard users (administrators only). */

const userPath = (id: string) => `/v1/users/${encodeURIComponent(id)}`;

export function listUsers(): Promise<User[]> {
  return request('/v1/users', arrayOf(UserSchema));
}

export function createUser(body: CreateUserRequest): Promise<User> {
  return request('/v1/users', UserSchema, { method: 'POST', body });
}

export function updateUser(id: string, body: UpdateUserRequest): Promise<User> {
  return request(userPath(id), UserSchema, { method: 'PATCH', body });
}
