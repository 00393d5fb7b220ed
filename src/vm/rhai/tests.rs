use super::*;
use crate::engine::TimerId;
use std::cell::Cell;

thread_local! {
    /// The deepest stack the last call on this thread reached (see `Frame::max_stack`).
    pub(super) static DEEPEST_STACK: Cell<usize> = const { Cell::new(0) };
}

/// A minimal host: counts cycles, keeps storage, refuses timers.
struct TestHost {
    limit: u64,
    used: u64,
    storage: BTreeMap<Vec<u8>, Vec<u8>>,
    fatal: Option<VmError>,
}

impl TestHost {
    fn new(limit: u64) -> Self {
        TestHost {
            limit,
            used: 0,
            storage: BTreeMap::new(),
            fatal: None,
        }
    }
    fn fail<T>(&mut self, e: VmError) -> Result<T, VmError> {
        self.fatal.get_or_insert(e.clone());
        Err(e)
    }
}

impl Host for TestHost {
    fn charge_cycles(&mut self, n: u64) -> Result<(), VmError> {
        if self.used.saturating_add(n) > self.limit {
            self.used = self.limit;
            return self.fail(VmError::OutOfCycles { limit: self.limit });
        }
        self.used += n;
        Ok(())
    }
    fn cycles_used(&self) -> u64 {
        self.used
    }
    fn cycles_limit(&self) -> u64 {
        self.limit
    }
    fn block_height(&mut self) -> Result<u64, VmError> {
        self.charge_cycles(10)?;
        Ok(7)
    }
    fn self_address(&mut self) -> Result<Address, VmError> {
        Ok(Address::from_low_u64(0x42))
    }
    fn tx_sender(&mut self) -> Result<Address, VmError> {
        Ok(Address::from_low_u64(0x43))
    }
    fn deployer(&mut self) -> Result<Address, VmError> {
        Ok(Address::from_low_u64(0x44))
    }
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, VmError> {
        Ok(self.storage.get(key).cloned())
    }
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), VmError> {
        self.storage.insert(key.to_vec(), value.to_vec());
        Ok(())
    }
    fn storage_remove(&mut self, key: &[u8]) -> Result<(), VmError> {
        self.storage.remove(key);
        Ok(())
    }
    fn balance(&mut self, _: &Address) -> Result<u128, VmError> {
        Ok(u128::MAX - 1)
    }
    fn transfer(&mut self, _: &Address, _: u128) -> Result<(), VmError> {
        Ok(())
    }
    fn emit(&mut self, _: &str, _: &[u8]) -> Result<(), VmError> {
        Ok(())
    }
    fn schedule_timer(&mut self, _: ScheduleArgs) -> Result<TimerId, VmError> {
        self.fail(VmError::InvalidInput("no timers here".into()))
    }
    fn extend_timer(&mut self, _: &[u8], _: u64) -> Result<(), VmError> {
        Ok(())
    }
    fn cancel_timer(&mut self, _: &[u8]) -> Result<(), VmError> {
        Ok(())
    }
    fn set_state_watch(
        &mut self,
        _: &Address,
        _: &crate::chain::DraftTimerArgs,
    ) -> Result<TimerId, VmError> {
        self.fail(VmError::InvalidInput("no timers here".into()))
    }
    fn set_interval(
        &mut self,
        _: &Address,
        _: &crate::chain::DraftTimerArgs,
    ) -> Result<TimerId, VmError> {
        self.fail(VmError::InvalidInput("no timers here".into()))
    }
    fn revert(&mut self, reason: &str) -> VmError {
        let e = VmError::Revert(reason.into());
        self.fatal.get_or_insert(e.clone());
        e
    }
}

fn run(src: &str, f: &str, host: &mut TestHost) -> Result<Dynamic, VmError> {
    let rt = RhaiRuntime::new();
    rt.call(
        &ActorCode::rhai("t.rhai", src),
        f,
        vec![Dynamic::UNIT],
        host,
    )
}

#[test]
fn operations_are_charged_at_the_documented_rate() {
    let mut h = TestHost::new(1_000_000);
    let _ = run("fn f(p) { let x = 0; x }", "f", &mut h).unwrap();
    let small = h.used;
    assert!(
        small > 0 && small.is_multiple_of(CYCLES_PER_OPERATION),
        "{small}"
    );
    let mut h = TestHost::new(1_000_000);
    let _ = run(
        "fn f(p) { let x = 0; for i in 0..100 { x += i; } x }",
        "f",
        &mut h,
    )
    .unwrap();
    assert!(h.used > small + 100 * CYCLES_PER_OPERATION, "{}", h.used);
}

#[test]
fn the_budget_follows_host_charges() {
    // 1,000 cycles: burning 950 leaves 5 operations, which the loop exceeds.
    let mut h = TestHost::new(1_000);
    let e = run("fn f(p) { burn_cycles(950); loop {} }", "f", &mut h).unwrap_err();
    assert_eq!(e, VmError::OutOfCycles { limit: 1_000 });
    assert_eq!(h.used, 1_000);
}

#[test]
fn u128_is_checked() {
    let mut h = TestHost::new(1_000_000);
    let v = run(
        r#"fn f(p) { let a = u128("1_000") * 3 + 7; a.to_string() + "/" + (a > 3006) + "/" + (a == 3007) }"#,
        "f",
        &mut h,
    )
    .unwrap();
    assert_eq!(v.into_string().unwrap(), "3007/true/true");
    let e = run(
        r#"fn f(p) { balance("0x0000000000000000000000000000000000000001") + 2 }"#,
        "f",
        &mut h,
    )
    .unwrap_err();
    assert!(
        matches!(&e, VmError::Script(m) if m.contains("overflow")),
        "{e}"
    );
    let e = run("fn f(p) { u128(1) - 2 }", "f", &mut h).unwrap_err();
    assert!(
        matches!(&e, VmError::Script(m) if m.contains("underflow")),
        "{e}"
    );
    let e = run("fn f(p) { u128(-1) }", "f", &mut h).unwrap_err();
    assert!(
        matches!(&e, VmError::Script(m) if m.contains("negative")),
        "{e}"
    );
    let e = run("fn f(p) { u128(5) / 0 }", "f", &mut h).unwrap_err();
    assert!(
        matches!(&e, VmError::Script(m) if m.contains("division")),
        "{e}"
    );
}

#[test]
fn read_only_calls_refuse_writes() {
    let rt = RhaiRuntime::new();
    let code = ActorCode::rhai(
        "gba.rhai",
        r#"fn get_gas_bid(ctx) { storage_get("bid") ?? "0" }
           fn greedy(ctx) { storage_set("bid", "9"); 9 }"#,
    );
    let mut h = TestHost::new(1_000_000);
    h.storage.insert(b"bid".to_vec(), b"5".to_vec());
    let v = rt
        .call_read_only(
            &code,
            "get_gas_bid",
            vec![Dynamic::from_map(Map::new())],
            &mut h,
        )
        .unwrap();
    assert_eq!(v.into_string().unwrap(), "5");
    let e = rt
        .call_read_only(&code, "greedy", vec![Dynamic::UNIT], &mut h)
        .unwrap_err();
    assert!(matches!(e, VmError::InvalidInput(_)), "{e}");
    assert_eq!(h.storage[&b"bid"[..]], b"5");
}

#[test]
fn the_frame_is_cleared_after_every_call() {
    let mut h = TestHost::new(1_000);
    let _ = run("fn f(p) { loop {} }", "f", &mut h);
    assert!(FRAME.with(|s| s.borrow().is_none()));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut h = TestHost::new(1_000);
        with_frame(&mut h, 10, || panic!("boom"))
    }));
    assert!(r.is_err());
    assert!(FRAME.with(|s| s.borrow().is_none()));
    // A host function outside a call fails cleanly.
    assert!(host_call(|h| h.block_height()).is_err());
}

#[test]
fn sandbox_blocks_sleep_eval_and_import() {
    let mut h = TestHost::new(1_000_000);
    let e = run("fn f(p) { sleep(100) }", "f", &mut h).unwrap_err();
    assert!(
        matches!(&e, VmError::Script(m) if m.contains("sleep")),
        "{e}"
    );
    for src in [r#"fn f(p) { eval("1") }"#, r#"import "x" as y; fn f(p) {}"#] {
        let e = run(src, "f", &mut h).unwrap_err();
        assert!(matches!(e, VmError::Compile { .. }), "{src}: {e}");
    }
}

/// The counted limits stop the deepest script the compiler accepts (every call level as deep in
/// expressions as a function may be, in several forms) at under half the native-stack guard, so
/// the guard is never what stops a script (issue 12, determinism).
#[test]
fn the_counted_limits_stop_recursion_well_inside_the_stack_guard() {
    type Wrap = fn(&str) -> String;
    let forms: [(&str, Wrap); 4] = [
        ("calls", |e| format!("abs({e})")),
        ("sums", |e| format!("(1 + {e})")),
        ("arrays", |e| format!("[{e}]")),
        ("blocks", |e| format!("{{ let x = 1; {e} }}")),
    ];
    for (name, wrap) in forms {
        let mut deepest = None;
        for k in 0..64 {
            let mut e = String::from("f(n + 1)");
            for _ in 0..k {
                e = wrap(&e);
            }
            let src = format!("fn f(n) {{ {e} }}\nfn start(p) {{ f(0) }}");
            if let Err(e) = compile(&ActorCode::rhai("deep.rhai", &src)) {
                assert!(k > 0, "{name}: {e}");
                break;
            }
            deepest = Some(src);
        }
        let src = deepest.expect("the simplest recursion compiles");
        let mut h = TestHost::new(10_000_000);
        let e = run(&src, "start", &mut h).unwrap_err();
        assert!(
            matches!(&e, VmError::Script(m) if m.contains("Stack overflow")),
            "{name}: {e}"
        );
        let used = DEEPEST_STACK.with(Cell::get);
        assert!(
            used < STACK_GUARD_BYTES / 2,
            "{name}: {used} bytes of stack at {MAX_CALL_LEVELS} call levels"
        );
    }
}
