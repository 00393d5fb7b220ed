//! The data checks run from Rhai's variable hooks: the walker of a function's live data and
//! the charge for reading a variable (see "Sandbox" and "Metering" in the module docs).

use super::*;

/// Rhai's variable-access hook, called before every read or write of a variable. It only checks
/// data and never resolves the variable itself (`Ok(None)`).
pub(super) fn on_var(name: &str, offset: usize, ctx: EvalContext) -> RhaiResult<Option<Dynamic>> {
    let value = scope_var(&ctx, name, offset);
    if let Some(value) = value
        && value.is_map()
        && let Ok(map) = value.as_map_ref()
        && map.len() > MAX_MAP_SIZE
    {
        return Err(too_large("Size of object map".into()));
    }
    check_frame_data(&ctx, value)?;
    Ok(None)
}

/// The value of the variable `name` that Rhai's variable hook is about to access: `offset`
/// counts from the top of the scope (O(offset) to reach); 0 means Rhai has no offset for it and
/// it is looked up by name.
pub(super) fn scope_var<'a>(
    ctx: &'a EvalContext,
    name: &str,
    offset: usize,
) -> Option<&'a Dynamic> {
    let mut vars = ctx.scope().iter_raw();
    let var = match offset {
        0 => vars.find(|(n, ..)| *n == name),
        n => vars.nth(n - 1),
    };
    var.map(|(_, _, value)| value)
}

/// Rhai's variable-definition hook (`let`, `const`): checks data, never forbids a definition.
pub(super) fn on_def_var(at_runtime: bool, _: VarDefInfo, ctx: EvalContext) -> RhaiResult<bool> {
    if at_runtime {
        check_frame_data(&ctx, None)?;
    }
    Ok(true)
}

pub(super) fn too_large(what: String) -> Box<EvalAltResult> {
    EvalAltResult::ErrorDataTooLarge(what, Position::NONE).into()
}

/// Walks the running function's live data when [`DATA_CHECK_INTERVAL`] operations have passed
/// since the last walk, and charges the walk to the call (one operation per
/// [`DATA_VALUES_PER_OPERATION`] values visited). Fails when a value is over the sandbox's array,
/// map or string limits or the frame holds more than [`MAX_FRAME_DATA_BYTES`].
///
/// `read` is the value of the variable about to be read, if any: the read is charged by the data
/// it holds (see [`READ_BYTES_PER_OPERATION`]).
pub(super) fn check_frame_data(ctx: &EvalContext, read: Option<&Dynamic>) -> RhaiResult<()> {
    FRAME.with(|slot| {
        let Ok(mut slot) = slot.try_borrow_mut() else {
            return Ok(());
        };
        let Some(f) = slot.as_mut() else {
            return Ok(());
        };
        if let Some(value) = read
            && holds_data(value)
        {
            let tally = read_tally(value);
            f.charge((tally.bytes / READ_BYTES_PER_OPERATION) as u64);
            if tally.max_depth > MAX_DATA_DEPTH {
                return tally.check();
            }
        }
        if f.ops < f.next_data_check {
            return Ok(());
        }
        let mut tally = Tally::default();
        let result = tally.scope(ctx.scope());
        let visited = f.walk_carry.saturating_add(tally.values);
        f.walk_carry = visited % DATA_VALUES_PER_OPERATION;
        f.charge(visited / DATA_VALUES_PER_OPERATION);
        f.next_data_check = f.ops.saturating_add(DATA_CHECK_INTERVAL);
        result
    })
}

/// Sizes of live data, counted the way Rhai counts them for its limits (nested array elements
/// and `Blob` bytes, nested map entries, string bytes) except that map keys count as string
/// bytes too, plus the frame's data bytes.
#[derive(Default)]
pub(super) struct Tally {
    /// Of the variable being walked: array elements and `Blob` bytes, nested.
    array: usize,
    /// Of the variable being walked: map entries, nested.
    map: usize,
    /// Of the variable being walked: string and map-key bytes, nested.
    string: usize,
    /// Of the whole frame: data bytes (see [`MAX_FRAME_DATA_BYTES`]).
    bytes: usize,
    /// Values visited.
    values: u64,
    /// Of the variable being walked: nesting of arrays and maps at the current value.
    depth: usize,
    /// Of the variable being walked: the deepest nesting seen.
    max_depth: usize,
}

impl Tally {
    /// Walks every variable of `scope`, stopping at the first limit exceeded.
    fn scope(&mut self, scope: &Scope) -> RhaiResult<()> {
        for (_, _, value) in scope.iter_raw() {
            (self.array, self.map, self.string, self.max_depth) = (0, 0, 0, 0);
            // A `Blob` variable (a handler's payload) may be larger than MAX_ARRAY_SIZE: it
            // passes through untouched (Rhai checks it when a method works on it in place).
            if value.is_blob()
                && let Ok(blob) = value.as_blob_ref()
            {
                self.values += 1;
                self.bytes = self.bytes.saturating_add(DATA_BYTES_PER_VALUE + blob.len());
            } else {
                self.value(value);
            }
            self.check()?;
        }
        Ok(())
    }

    fn exceeded(&self) -> bool {
        self.string > MAX_STRING_BYTES
            || self.array > MAX_ARRAY_SIZE
            || self.map > MAX_MAP_SIZE
            || self.bytes > MAX_FRAME_DATA_BYTES
            || self.max_depth > MAX_DATA_DEPTH
    }

    /// The error for the first limit exceeded, in the order Rhai checks its own.
    fn check(&self) -> RhaiResult<()> {
        let what = if self.string > MAX_STRING_BYTES {
            "Length of string".into()
        } else if self.array > MAX_ARRAY_SIZE {
            "Size of array/BLOB".into()
        } else if self.map > MAX_MAP_SIZE {
            "Size of object map".into()
        } else if self.bytes > MAX_FRAME_DATA_BYTES {
            format!(
                "Data of one script function call ({} MiB limit)",
                MAX_FRAME_DATA_BYTES >> 20
            )
        } else if self.max_depth > MAX_DATA_DEPTH {
            format!("Nesting of arrays and maps ({MAX_DATA_DEPTH} levels limit)")
        } else {
            return Ok(());
        };
        Err(too_large(what))
    }

    /// Adds one element of an array or map. Returns `false` once a limit is exceeded, when the
    /// walk stops.
    fn element(&mut self, item: &Dynamic) -> bool {
        if !holds_data(item) {
            // The common element (a number, a bool, `()`), counted inline.
            self.values += 1;
            self.bytes = self.bytes.saturating_add(DATA_BYTES_PER_VALUE);
            return true;
        }
        if self.exceeded() {
            return false;
        }
        self.value(item);
        true
    }

    /// Adds `value` and everything in it, stopping early once a limit is exceeded (which also
    /// bounds the recursion by [`MAX_DATA_DEPTH`]).
    fn value(&mut self, value: &Dynamic) {
        if value.is_array() || value.is_map() {
            self.depth += 1;
            self.max_depth = self.max_depth.max(self.depth);
            if self.depth <= MAX_DATA_DEPTH {
                self.container(value);
            }
            self.depth -= 1;
        } else {
            self.container(value);
        }
    }

    /// [`value`](Self::value) without the nesting count.
    fn container(&mut self, value: &Dynamic) {
        self.values += 1;
        self.bytes = self.bytes.saturating_add(DATA_BYTES_PER_VALUE);
        // The `is_*` tests are plain tag checks; a failed `as_*_ref` would build an error.
        if value.is_string()
            && let Ok(s) = value.as_immutable_string_ref()
        {
            self.string = self.string.saturating_add(s.len());
            self.bytes = self.bytes.saturating_add(s.len());
        } else if value.is_array()
            && let Ok(array) = value.as_array_ref()
        {
            for item in array.iter() {
                self.array += 1;
                if !self.element(item) {
                    return;
                }
            }
        } else if value.is_blob()
            && let Ok(blob) = value.as_blob_ref()
        {
            // Nested in an array or map: an element plus its bytes, as Rhai counts it.
            self.array = self.array.saturating_add(1 + blob.len());
            self.bytes = self.bytes.saturating_add(blob.len());
        } else if value.is_map()
            && let Ok(map) = value.as_map_ref()
        {
            for (key, item) in map.iter() {
                self.map += 1;
                self.string = self.string.saturating_add(key.len());
                self.bytes = self.bytes.saturating_add(key.len());
                if !self.element(item) {
                    return;
                }
            }
        }
    }
}

/// The data bytes `value` holds (counted as [`MAX_FRAME_DATA_BYTES`] counts them) and its
/// nesting. The walk stops once a sandbox limit is exceeded, which bounds its cost; a value
/// nested deeper than [`MAX_DATA_DEPTH`] fails the read, the other limits the next data check.
pub(super) fn read_tally(value: &Dynamic) -> Tally {
    let mut tally = Tally::default();
    if let Ok(blob) = value.as_blob_ref() {
        tally.bytes = DATA_BYTES_PER_VALUE + blob.len();
    } else {
        tally.value(value);
    }
    tally
}

/// Whether `value` is a string, array, `Blob` or map (plain tag checks).
pub(super) fn holds_data(value: &Dynamic) -> bool {
    value.is_string() || value.is_array() || value.is_map() || value.is_blob()
}
