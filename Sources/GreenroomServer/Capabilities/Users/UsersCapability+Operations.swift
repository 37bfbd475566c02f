import GreenroomProtocol

extension UsersCapability {
    /// `user.get`, `user.list`, `user.me`, `user.update`, `user.partialUpdate`: any user may
    /// read users; a user may change only itself. `device.add`, `device.remove`,
    /// `device.list`: the connected user's own push devices.
    func registerOperations(_ router: inout CommandRouter) {
        let users = service
        router.on(UserOperation.get) { (context, args: UserGetArgs) -> User in
            try await users.get(args.id)
        }
        router.on(UserOperation.list) { (context, args: UserListArgs) -> Page<User> in
            try await users.list(args)
        }
        router.on(UserOperation.me) { (context, _: EmptyResult) -> User in
            try await users.get(context.identity.userId)
        }
        router.on(UserOperation.update) { (context, args: UserUpdateArgs) -> User in
            if let id = args.id, id != context.identity.userId {
                throw GreenroomError(.permissionDenied, "a user may update only itself")
            }
            return try await users.update(context.identity.userId, args)
        }
        router.on(UserOperation.partialUpdate) { (context, args: UserPartialUpdateArgs) -> User in
            try await users.partialUpdate(context.identity.userId, args)
        }
        router.on(DeviceOperation.add) { (context, args: DeviceAddArgs) -> Device in
            try await users.addDevice(args, userId: context.identity.userId)
        }
        router.on(DeviceOperation.remove) { (context, args: DeviceRef) -> EmptyResult in
            try await users.removeDevice(args.id, userId: context.identity.userId)
            return EmptyResult()
        }
        router.on(DeviceOperation.list) { (context, _: EmptyResult) -> [Device] in
            try await users.devices(of: context.identity.userId)
        }
    }
}
