export * from './password-server.ts'
export * from './sshd.ts'
