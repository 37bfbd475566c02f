import GreenroomCore
import GreenroomProtocol

extension UsersCapability {
    /// `user.get`, `user.list`, `user.me`, `user.update`, `user.partialUpdate`: any user may
    /// read users; a user may change only itself. `device.add`, `device.remove`,
    /// `device.list`: the connected user's own push devices.
    package func registerOperations(_ router: inout CapabilityOperations) {
        let users = service
        router.on(UserOperation.get) { (caller, args: UserGetArgs) -> User in
            try await users.get(args.id)
        }
        router.on(UserOperation.list) { (caller, args: UserListArgs) -> Page<User> in
            try await users.list(args)
        }
        router.on(UserOperation.me) { (caller, _: EmptyResult) -> User in
            try await users.get(caller.identity.userId)
        }
        router.on(UserOperation.update) { (caller, args: UserUpdateArgs) -> User in
            if let id = args.id, id != caller.identity.userId {
                throw GreenroomError(.permissionDenied, "a user may update only itself")
            }
            return try await users.update(caller.identity.userId, args)
        }
        router.on(UserOperation.partialUpdate) { (caller, args: UserPartialUpdateArgs) -> User in
            try await users.partialUpdate(caller.identity.userId, args)
        }
        router.on(DeviceOperation.add) { (caller, args: DeviceAddArgs) -> Device in
            try await users.addDevice(args, userId: caller.identity.userId)
        }
        router.on(DeviceOperation.remove) { (caller, args: DeviceRef) -> EmptyResult in
            try await users.removeDevice(args.id, userId: caller.identity.userId)
            return EmptyResult()
        }
        router.on(DeviceOperation.list) { (caller, _: EmptyResult) -> [Device] in
            try await users.devices(of: caller.identity.userId)
        }
    }
}
