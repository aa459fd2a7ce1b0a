import { Type } from '@sinclair/typebox'

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 200 }),
    // Bounded before scrypt runs.
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
)

export const AuthState = Type.Object({
  authenticated: Type.Boolean(),
  username: Type.Union([Type.String(), Type.Null()]),
})

export const LoginResult = Type.Object({
  authenticated: Type.Literal(true),
  username: Type.String(),
})
